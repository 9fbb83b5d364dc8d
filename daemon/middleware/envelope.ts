import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes, routePath } from 'hono/route';
import type { Logger } from '../../core/kernel/log.ts';
import type { Metrics } from '../../core/kernel/metrics/registry.ts';
import { recordRequest, REQUEST_ID_HEADER, requestIdFor } from '../http/envelope.ts';
import { redactPath } from '../http/redact-path.ts';
import type { AppEnv } from '../types.ts';

/**
 * The route template a request matched (`/api/app/keys/:id`), never the raw path: raw paths carry
 * tokens (`/api/public/share/<token>`) and would give every request its own time series.
 * The last matched route registered for a concrete method is the handler; `app.use` middleware is
 * registered as ALL and wraps it. A request refused by middleware before its handler still reports
 * the handler's template. No handler (404 from notFound) → "unmatched".
 */
export function routeTemplate(c: Context<AppEnv>): string {
  if (c.get('unmatched')) return 'unmatched';
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) if (routes[i]!.method !== 'ALL') return routes[i]!.path;
  return 'unmatched';
}

/**
 * The Hono side of http/envelope.ts: request id, then, once the answer is final (errors become
 * responses inside `next()`), the `x-request-id` header, the HTTP metric and the access line.
 * The access line's `route` is the template the request got to (`/api/v1/*` when refused there).
 */
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
        // A Response with immutable headers (e.g. one passed through from fetch): copy it.
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
