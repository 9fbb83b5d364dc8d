import { Hono, type MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { operatorOf } from '../../core/accounts/operators.ts';
import { sessionUser } from '../../core/accounts/sessions.ts';
import { verifyCredential } from '../../core/credentials/service.ts';
import type { AdminScope } from '../../core/credentials/types.ts';
import { AppError } from '../../core/kernel/errors.ts';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { bearerToken } from '../http/bearer.ts';
import { SESSION_COOKIE } from '../middleware/session.ts';
import type { AppEnv } from '../types.ts';

/**
 * An operator's session or a scoped `svc_admin_` token; other bearers get 401.
 * Only safe methods so far: sessions need no CSRF header.
 */
export function requireOperator(core: Core, services: Services, scope: AdminScope): MiddlewareHandler<AppEnv> {
  const creds = services.credentials;
  const accounts = services.accounts;
  const refuse = (status: 401 | 403, surface: string, reason: string, message: string) => {
    core.metrics.authFailures.inc({ surface, reason });
    return status === 401
      ? new AppError('unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer' } })
      : new AppError('forbidden', message);
  };
  return async (c, next) => {
    const header = c.req.header('authorization');
    if (header !== undefined) {
      const token = bearerToken(header);
      const principal = token ? await verifyCredential(creds, token, 'admin') : undefined;
      if (!principal) throw refuse(401, 'admin', token ? 'invalid' : 'malformed', 'A valid admin token (svc_admin_…) or an operator session is required.');
      if (!principal.scopes.includes(scope)) throw refuse(403, 'admin', 'scope', `This admin token lacks the ${scope} scope.`);
      // Dies with its holder's operator role, not only when revoked.
      if (!(await operatorOf(core.db, principal.userId))) throw refuse(403, 'admin', 'not_operator', 'The holder of this admin token is no longer an operator.');
      c.set('principal', principal);
      return next();
    }
    const token = getCookie(c, SESSION_COOKIE);
    const user = await sessionUser(accounts, token);
    if (!user) throw refuse(401, 'session', token ? 'invalid' : 'missing', 'Sign in as an operator, or send an admin token (svc_admin_…) as Bearer.');
    if (!(await operatorOf(core.db, user.id))) throw refuse(403, 'operator', 'not_operator', 'Only operators (admins and owners of the operator workspace) may read this.');
    c.set('user', user);
    return next();
  };
}

export function adminRoutes(core: Core, services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/metrics', requireOperator(core, services, 'usage:read'), async (c) => {
    const body = await core.metrics.registry.metrics();
    return c.body(body, 200, { 'content-type': core.metrics.registry.contentType });
  });
  return app;
}
