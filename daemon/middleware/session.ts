import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { csrfValid, sessionOf } from '../../core/accounts/sessions.ts';
import { atLeast, type Role } from '../../core/accounts/roles.ts';
import { membership, workspacesOf } from '../../core/accounts/workspaces.ts';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { AppError, forbidden, unauthorized } from '../../core/kernel/errors.ts';
import type { AppEnv } from '../types.ts';

export const SESSION_COOKIE = 'service_session';
export const CSRF_COOKIE = 'service_csrf';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The page must read the CSRF value; Secure in production. */
export function setSessionCookies(c: Context, core: Core, s: { token: string; csrf: string; expiresAt: string }): void {
  const maxAge = Math.floor((Date.parse(s.expiresAt) - core.clock.now()) / 1000);
  const secure = core.config.production;
  setCookie(c, SESSION_COOKIE, s.token, { httpOnly: true, sameSite: 'Lax', secure, path: '/', maxAge });
  setCookie(c, CSRF_COOKIE, s.csrf, { httpOnly: false, sameSite: 'Lax', secure, path: '/', maxAge });
}

export function clearSessionCookies(c: Context, core: Core): void {
  const secure = core.config.production;
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure });
  deleteCookie(c, CSRF_COOKIE, { path: '/', secure });
}

/** Signed double-submit CSRF on writes; a Bearer header is not a session. */
export function requireSession(core: Core, services: Services): MiddlewareHandler<AppEnv> {
  const deps = services.accounts;
  return async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE);
    const session = await sessionOf(deps, token);
    if (!session || !token) {
      core.metrics.authFailures.inc({ surface: 'session', reason: token ? 'invalid' : 'missing' });
      throw unauthorized('Sign in first: this route needs a session cookie.');
    }
    if (!SAFE_METHODS.has(c.req.method) && !csrfValid(core.auth.csrfKey, token, c.req.header('x-csrf-token'))) {
      core.metrics.authFailures.inc({ surface: 'session', reason: 'csrf' });
      throw forbidden('Missing or wrong x-csrf-token header: send the value of the service_csrf cookie.', 'csrf_failed');
    }
    c.set('user', session.user);
    c.set('sessionToken', token);
    c.set('sessionWorkspaceId', session.activeWorkspaceId);
    await next();
  };
}

/** `x-workspace-id`, else the session's (while still a member), else the user's own. */
export function activeWorkspace(core: Core): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const user = c.get('user');
    const wanted = c.req.header('x-workspace-id');
    let ws;
    if (wanted) ws = await membership(core.db, wanted, user.id);
    else {
      const remembered = c.get('sessionWorkspaceId');
      if (remembered) ws = await membership(core.db, remembered, user.id);
      if (!ws) {
        const all = await workspacesOf(core.db, user.id);
        ws = all.find((w) => w.own) ?? all[0];
      }
    }
    if (!ws) throw forbidden(wanted ? 'You are not a member of that workspace.' : 'You belong to no workspace.', 'not_a_member');
    c.set('workspace', ws);
    // A script never acts in an unexpected workspace without seeing it.
    c.header('x-workspace-id', ws.id);
    await next();
  };
}

export function requireRole(min: Role): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!atLeast(c.get('workspace').role, min)) {
      throw new AppError('forbidden', `This needs the ${min} role or higher in the workspace.`);
    }
    await next();
  };
}
