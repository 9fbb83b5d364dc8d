import type { MiddlewareHandler } from 'hono';
import type { CredentialKind } from '../../core/credentials/types.ts';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { bearerAuth } from '../http/bearer.ts';
import type { AppEnv } from '../types.ts';

/** No cookies: other origins' pages cannot ride a signed-in browser. */
export function requireBearer(core: Core, services: Services, kind: CredentialKind): MiddlewareHandler<AppEnv> {
  const authenticate = bearerAuth(core, services.credentials, kind);
  return async (c, next) => {
    c.set('principal', await authenticate(c.req.header('authorization')));
    await next();
  };
}
