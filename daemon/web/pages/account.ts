// Account settings; a password change ends your other sessions.
import { changePassword } from '../../../core/accounts/password-change.ts';
import { endUserSessions } from '../../../core/accounts/sessions.ts';
import { clearSessionCookies } from '../../middleware/session.ts';
import type { Session, WebContext } from '../context.ts';
import { errorsOf, Fields, form, redirectWith, type Errors } from '../form.ts';
import { facts, html, table } from '../html.ts';
import type { Web } from '../router.ts';

export function accountPages(web: Web): void {
  const { core } = web;
  const deps = web.services.accounts;

  const page = (c: WebContext, s: Session, errors: Errors = {}, status = 200) => {
    const f = new Fields({}, errors, 'pw');
    return web.page(c, {
      title: 'Your account',
      section: '/account',
      status,
      body: html`${facts([['Name', s.user.name], ['Email', s.user.email]])}
<h2>Workspaces</h2>
${table('Your workspaces', ['Workspace', 'Your role', ''], s.workspaces.map((w) => html`<tr><td>${w.name}</td><td>${w.role}</td><td>${w.id === s.workspace.id ? 'active' : w.own ? 'your own' : ''}</td></tr>`))}
<h2>Change your password</h2>${f.summary()}${form(s.csrf, '/account/password', html`
${f.input('Current password', 'currentPassword', { type: 'password', required: true, autocomplete: 'current-password', maxlength: 1024 })}
${f.input('New password', 'newPassword', { type: 'password', required: true, autocomplete: 'new-password', maxlength: 1024, hint: 'At least 8 characters. Your other sessions are signed out.' })}
<button type="submit">Change password</button>`, { label: 'Change your password' })}
<h2>Sign out everywhere</h2><p>Ends every session of your account, on every device, this one included.</p>
${form(s.csrf, '/account/sign-out-everywhere', html`<button type="submit" class="danger">Sign out everywhere</button>`)}`,
    });
  };

  web.get('/account', (c, s) => page(c, s));

  web.post('/account/password', async (c, s, f) => {
    try {
      const r = await changePassword(deps, { userId: s.user.id, currentPassword: f.get('currentPassword').slice(0, 1024), newPassword: f.get('newPassword').slice(0, 1024), keepSession: s.token });
      return redirectWith(core, c, '/account', `Password changed. ${r.sessionsEnded ? `${r.sessionsEnded} other session(s) signed out.` : ''}`.trim());
    } catch (err) {
      const { status, errors } = errorsOf(err);
      return page(c, s, errors, status);
    }
  });

  web.post('/account/sign-out-everywhere', async (c, s) => {
    await endUserSessions(deps, s.user.id);
    clearSessionCookies(c, core);
    return redirectWith(core, c, '/sign-in', 'You are signed out on every device.');
  });
}
