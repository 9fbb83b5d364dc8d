import { clientAddress } from '../client-address.ts';
import { Hono, type Context } from 'hono';
import { getCookie } from 'hono/cookie';
import * as z from 'zod';
import { isEmail, normalizeEmail } from '../../core/accounts/email.ts';
import { login } from '../../core/accounts/login.ts';
import { register } from '../../core/accounts/register.ts';
import { resetPassword } from '../../core/accounts/password-reset.ts';
import { createSession, endSession, sessionOf } from '../../core/accounts/sessions.ts';
import type { AccountView } from '../../core/accounts/types.ts';
import { workspacesOf } from '../../core/accounts/workspaces.ts';
import { AppError, badRequest, unauthorized } from '../../core/kernel/errors.ts';
import type { Core } from '../../core/index.ts';
import type { Services } from '../../core/services.ts';
import { readJson } from '../http/json-body.ts';
import { clearSessionCookies, requireSession, SESSION_COOKIE, setSessionCookies } from '../middleware/session.ts';
import type { AppEnv } from '../types.ts';
import { accountRoutes, invitingWorkspace } from './account.ts';

// Control characters would corrupt logs, emails and pages.
const noControlChars = (s: string) => !/[\p{Cc}\u2028\u2029]/u.test(s);

/** Strict: an extra key (`role`, `__proto__`) is a 400, never ignored. */
export const RegisterBody = z.strictObject({
  email: z.string().max(320),
  password: z.string().min(8).max(1024),
  name: z.string().trim().min(1).max(200).refine(noControlChars, 'must not contain control characters').optional(),
  invitationToken: z.string().max(200).optional(),
});

export const LoginBody = z.strictObject({
  email: z.string().max(320),
  // No minimum: a short password is simply wrong (401).
  password: z.string().max(1024),
});

export const ResetBody = z.strictObject({
  token: z.string().max(200),
  newPassword: z.string().max(1024),
});

const view = (v: AccountView) => ({ user: v.user, workspaces: v.workspaces });

export function authRoutes(core: Core, services: Services): Hono<AppEnv> {
  const deps = services.accounts;
  const app = new Hono<AppEnv>();

  /** A session the browser already held is ended first. */
  async function signIn(c: Context<AppEnv>, userId: string, activeWorkspaceId?: string): Promise<void> {
    const previous = getCookie(c, SESSION_COOKIE);
    if (previous) await endSession(deps, previous);
    setSessionCookies(c, core, await createSession(deps, userId, activeWorkspaceId));
  }

  app.post('/register', async (c) => {
    const body = await readJson(c, RegisterBody);
    const email = normalizeEmail(body.email);
    if (!isEmail(email)) throw badRequest('invalid_email', 'email is not a valid address.', 'email');
    const account = await register(deps, {
      email,
      password: body.password,
      name: body.name ?? email.slice(0, email.lastIndexOf('@')),
      invitationToken: body.invitationToken,
      clientAddress: clientAddress(c, core.config.SERVICE_TRUST_PROXY),
    });
    // Invited sign-ups act in the inviting workspace (DESIGN.md).
    await signIn(c, account.user.id, body.invitationToken ? await invitingWorkspace(core, account.user.id) : undefined);
    return c.json(view(account), 201);
  });

  app.post('/login', async (c) => {
    const body = await readJson(c, LoginBody);
    let account: AccountView;
    try {
      account = await login(deps, { email: body.email, password: body.password, clientAddress: clientAddress(c, core.config.SERVICE_TRUST_PROXY) });
    } catch (err) {
      if (err instanceof AppError && (err.status === 401 || err.status === 429)) {
        core.metrics.authFailures.inc({ surface: 'login', reason: err.status === 401 ? 'invalid_credentials' : 'throttled' });
      }
      throw err;
    }
    await signIn(c, account.user.id);
    return c.json(view(account));
  });

  // `svc user reset-password`'s link: the body's token is the credential.
  app.post('/reset-password', async (c) => {
    const body = await readJson(c, ResetBody);
    await resetPassword(deps, body.token, body.newPassword);
    return c.body(null, 204);
  });

  app.post('/logout', requireSession(core, services), async (c) => {
    await endSession(deps, c.get('sessionToken'));
    clearSessionCookies(c, core);
    return c.body(null, 204);
  });

  app.get('/session', async (c) => {
    c.header('cache-control', 'no-store');
    const session = await sessionOf(deps, getCookie(c, SESSION_COOKIE));
    if (!session) throw unauthorized('Not signed in.');
    const workspaces = await workspacesOf(core.db, session.user.id);
    const active = workspaces.find((w) => w.id === session.activeWorkspaceId) ?? workspaces.find((w) => w.own) ?? workspaces[0];
    return c.json({ user: session.user, workspaces: workspaces.map((w) => ({ id: w.id, name: w.name, role: w.role })), activeWorkspaceId: active?.id ?? null });
  });

  app.route('/', accountRoutes(core, services));

  return app;
}
