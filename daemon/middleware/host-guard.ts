import type { MiddlewareHandler } from 'hono';
import type { Core } from '../../core/index.ts';
import { hostPolicy } from '../host-check.ts';
import type { AppEnv } from '../types.ts';

/**
 * The Hono side of the host check (daemon/host-check.ts; daemon/routes/v1/fast-chat.ts applies the same
 * policy). The Host header, not the request URL: an absolute-form request target would set the URL
 * to anything. Under `app.request` (tests, no socket) there is no Host header and the URL's is used.
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
