import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Metrics } from '../../core/metrics/registry.ts';
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

/** Request count and latency by method, route template and status (the operator's dashboards). */
export function httpMetrics(metrics: Metrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const start = performance.now();
    try {
      await next();
    } finally {
      // Unknown methods would also be unbounded label values: keep the standard ones.
      const method = STANDARD_METHODS.has(c.req.method) ? c.req.method : 'OTHER';
      const series = metrics.http(method, routeTemplate(c), c.res.status);
      series.count.inc();
      series.duration.observe((performance.now() - start) / 1000);
    }
  };
}

const STANDARD_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
