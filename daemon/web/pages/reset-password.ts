// Behind `svc user reset-password`'s one-time link.
import { resetPassword } from '../../../core/accounts/password-reset.ts';
import { AppError } from '../../../core/kernel/errors.ts';
import type { Session, WebContext } from '../context.ts';
import { errorsOf, Fields, form, formToken, redirectWith, type Errors } from '../form.ts';
import { html } from '../html.ts';
import type { Web } from '../router.ts';

export function resetPasswordPages(web: Web): void {
  const { core } = web;
  const deps = web.services.accounts;

  const page = (c: WebContext, s: Session | undefined, values: Record<string, string>, errors: Errors = {}, status = 200) => {
    const f = new Fields(values, errors, 'reset');
    return web.page(c, {
      title: 'Choose a new password',
      narrow: true,
      status,
      body: html`${f.summary()}${form(
        formToken(core, c, s),
        '/reset-password',
        html`<input type="hidden" name="token" value="${values.token ?? ''}">
${f.input('New password', 'newPassword', { type: 'password', required: true, autocomplete: 'new-password', maxlength: 1024, hint: 'At least 8 characters. Every session of the account is signed out.' })}
<button type="submit">Set password</button>`,
      )}`,
    });
  };

  web.publicGet('/reset-password', (c, s) => page(c, s, { token: c.req.query('token') ?? '' }));

  web.publicPost('/reset-password', async (c, s, f) => {
    try {
      await resetPassword(deps, f.get('token').slice(0, 200), f.get('newPassword').slice(0, 1024));
      return redirectWith(core, c, '/sign-in', 'Your password is changed. Sign in with the new one.');
    } catch (err) {
      const { status, errors } = errorsOf(err);
      // About the link, not the password field: above the form.
      const shown = err instanceof AppError && err.code === 'reset_link_invalid' ? { newPassword: err.message } : errors;
      return page(c, s, f.values(), shown, status);
    }
  });
}
