// Sign-up, sign-in, sign-out and the workspace switch: /api/auth's core calls, as forms.
import { isEmail, normalizeEmail } from '../../../core/accounts/email.ts';
import { login } from '../../../core/accounts/login.ts';
import { register } from '../../../core/accounts/register.ts';
import { createSession, endSession, setActiveWorkspace } from '../../../core/accounts/sessions.ts';
import { membership } from '../../../core/accounts/workspaces.ts';
import { AppError, badRequest, forbidden } from '../../../core/kernel/errors.ts';
import { clientAddress } from '../../client-address.ts';
import { clearSessionCookies, SESSION_COOKIE, setSessionCookies } from '../../middleware/session.ts';
import { invitingWorkspace } from '../../routes/account.ts';
import { getCookie } from 'hono/cookie';
import { safeNext, type Session, type WebContext } from '../context.ts';
import { errorsOf, Fields, form, formToken, redirectWith, type Errors } from '../form.ts';
import { html } from '../html.ts';
import type { Web } from '../router.ts';

export function authPages(web: Web): void {
  const { core } = web;
  const deps = web.services.accounts;

  async function signIn(c: WebContext, userId: string, activeWorkspaceId?: string): Promise<void> {
    const previous = getCookie(c, SESSION_COOKIE);
    if (previous) await endSession(deps, previous);
    setSessionCookies(c, core, await createSession(deps, userId, activeWorkspaceId));
  }

  const signUpPage = (c: WebContext, s: Session | undefined, values: Record<string, string>, errors: Errors = {}, status = 200) => {
    const f = new Fields(values, errors, 'signup');
    return web.page(c, {
      title: 'Create your account',
      narrow: true,
      status,
      body: html`${f.summary()}${form(
        formToken(core, c, s),
        '/sign-up',
        html`${f.input('Invitation code', 'invitationToken', { autocomplete: 'off', maxlength: 200, hint: 'From the sign-up link you were sent. The first account on a new installation needs none.' })}
${f.input('Email', 'email', { type: 'email', required: true, autocomplete: 'email', maxlength: 320 })}
${f.input('Name', 'name', { autocomplete: 'name', maxlength: 200 })}
${f.input('Password', 'password', { type: 'password', required: true, autocomplete: 'new-password', maxlength: 1024, hint: 'At least 8 characters.' })}
<button type="submit">Create account</button>`,
      )}<p>Already have an account? <a href="/sign-in">Sign in</a></p>`,
    });
  };

  const signInPage = (c: WebContext, s: Session | undefined, values: Record<string, string>, errors: Errors = {}, status = 200) => {
    const f = new Fields(values, errors, 'signin');
    return web.page(c, {
      title: 'Sign in',
      narrow: true,
      status,
      body: html`${f.summary()}${form(
        formToken(core, c, s),
        '/sign-in',
        html`<input type="hidden" name="next" value="${safeNext(values.next)}">
${f.input('Email', 'email', { type: 'email', required: true, autocomplete: 'username', maxlength: 320 })}
${f.input('Password', 'password', { type: 'password', required: true, autocomplete: 'current-password', maxlength: 1024 })}
<button type="submit">Sign in</button>`,
      )}<p>No account yet? <a href="/sign-up">Create one</a></p>`,
    });
  };

  web.publicGet('/sign-up', (c, s) => signUpPage(c, s, { invitationToken: c.req.query('invite') ?? '' }));

  web.publicPost('/sign-up', async (c, s, f) => {
    try {
      const email = normalizeEmail(f.get('email').slice(0, 320));
      if (!isEmail(email)) throw badRequest('invalid_email', 'Enter a valid email address.', 'email');
      const password = f.get('password');
      if (password.length < 8) throw badRequest('weak_password', 'The password needs at least 8 characters.', 'password');
      if (password.length > 1024) throw badRequest('invalid_request', 'The password is too long (at most 1024 characters).', 'password');
      const name = f.opt('name')?.slice(0, 200) ?? email.slice(0, email.lastIndexOf('@'));
      if (/[\p{Cc}\u2028\u2029]/u.test(name)) throw badRequest('invalid_request', 'The name must not contain control characters.', 'name');
      const token = f.opt('invitationToken');
      if (token && token.length > 200) throw badRequest('invalid_request', 'The invitation code is too long.', 'invitationToken');
      // The same per-address throttle of refused sign-ups as POST /api/auth/register.
      const account = await register(deps, { email, password, name, invitationToken: token, clientAddress: clientAddress(c, core.config.SERVICE_TRUST_PROXY) });
      await signIn(c, account.user.id, token ? await invitingWorkspace(core, account.user.id) : undefined);
      return redirectWith(core, c, '/', `Welcome, ${account.user.name}.`);
    } catch (err) {
      const { status, errors } = errorsOf(err);
      // The spec's one 403 for every bad invitation.
      if (err instanceof AppError && err.code === 'invalid_invitation') return signUpPage(c, s, f.values(), { invitationToken: err.message }, status);
      return signUpPage(c, s, f.values(), errors, status);
    }
  });

  web.publicGet('/sign-in', (c, s) => signInPage(c, s, { next: c.req.query('next') ?? '/' }));

  web.publicPost('/sign-in', async (c, s, f) => {
    try {
      const account = await login(
        deps,
        { email: f.get('email').slice(0, 320), password: f.get('password').slice(0, 1024), clientAddress: clientAddress(c, core.config.SERVICE_TRUST_PROXY) },
      ).catch((err: unknown) => {
        if (err instanceof AppError && (err.status === 401 || err.status === 429)) {
          core.metrics.authFailures.inc({ surface: 'login', reason: err.status === 401 ? 'invalid_credentials' : 'throttled' });
        }
        throw err;
      });
      await signIn(c, account.user.id);
      return c.redirect(safeNext(f.get('next')), 303);
    } catch (err) {
      const { status, errors } = errorsOf(err);
      return signInPage(c, s, f.values(), errors, status);
    }
  });

  web.post('/sign-out', async (c, s) => {
    await endSession(deps, s.token);
    clearSessionCookies(c, core);
    return redirectWith(core, c, '/sign-in', 'You are signed out.');
  });

  // Remembered on the session, so the API and every page act there.
  web.post('/workspace', async (c, s, f) => {
    const ws = await membership(core.db, f.get('workspaceId'), s.user.id);
    if (!ws) throw forbidden('You are not a member of that workspace.');
    await setActiveWorkspace(deps, s.token, ws.id);
    return redirectWith(core, c, safeNext(f.get('back')), `Now working in ${ws.name} as ${ws.role}.`);
  });
}
