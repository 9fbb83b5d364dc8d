import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from '../../core/log.ts';
import type { AppEnv } from '../types.ts';
import { redactPath } from './redact-path.ts';

/**
 * One JSON line per request. The query string is never logged (it can hold API keys or tokens a
 * client put there by mistake) and credential path segments are redacted; the route template
 * (`/api/public/share/:token`) is safe as it is and is what dashboards group by.
 */
export function accessLog(log: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const start = performance.now();
    try {
      await next();
    } finally {
      const status = c.res.status;
      const fields = {
        method: c.req.method,
        path: redactPath(c.req.path),
        route: c.get('unmatched') ? null : routePath(c) || null,
        status,
        durationMs: Math.round((performance.now() - start) * 100) / 100,
        requestId: c.get('requestId'),
      };
      if (status >= 500) log.warn('request', fields);
      else log.info('request', fields);
    }
  };
}
