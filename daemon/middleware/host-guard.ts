import type { MiddlewareHandler } from 'hono';
import type { Core } from '../../core/index.ts';
import { hostPolicy } from '../host-check.ts';
import type { AppEnv } from '../types.ts';

/**
 * The Host header, not the URL: an absolute-form target sets the URL to anything.
 * Tests' `app.request` sends none, hence the fallback.
 */
export function hostGuard(core: Core): MiddlewareHandler<AppEnv> {
  const check = hostPolicy(core.config);
  return async (c, next) => {
    const verdict = check({
      method: c.req.method,
      path: c.req.path,
      host: c.req.header('host') ?? new URL(c.req.url).host,
      forwardedHost: c.req.header('x-forwarded-host'),
      origin: c.req.header('origin'),
    });
    if (typeof verdict !== 'string') throw verdict;
    await next();
  };
}
