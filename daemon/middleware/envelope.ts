import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes, routePath } from 'hono/route';
import type { Logger } from '../../core/kernel/log.ts';
import type { Metrics } from '../../core/kernel/metrics/registry.ts';
import { recordRequest, REQUEST_ID_HEADER, requestIdFor } from '../http/envelope.ts';
import { redactPath } from '../http/redact-path.ts';
import type { AppEnv } from '../types.ts';

/**
 * Never the raw path: tokens, and a series per request. The handler is the
 * last non-ALL match, so requests refused by middleware still report it.
 */
export function routeTemplate(c: Context<AppEnv>): string {
  if (c.get('unmatched')) return 'unmatched';
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) if (routes[i]!.method !== 'ALL') return routes[i]!.path;
  return 'unmatched';
}

/** Records after `next()`, once errors are answers. */
export function envelope(to: { log: Logger; metrics: Metrics }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const start = performance.now();
    const id = requestIdFor(c.req.header(REQUEST_ID_HEADER));
    c.set('requestId', id);
    try {
      await next();
      try {
        c.res.headers.set(REQUEST_ID_HEADER, id);
      } catch {
        // Immutable headers (a fetch Response passed through): copy it.
        const res = new Response(c.res.body, c.res);
        res.headers.set(REQUEST_ID_HEADER, id);
        c.res = res;
      }
    } finally {
      const route = c.get('unmatched') ? null : routePath(c) || null;
      recordRequest(to, c.req.method, redactPath(c.req.path), route, routeTemplate(c), c.res.status, start, id);
    }
  };
}
