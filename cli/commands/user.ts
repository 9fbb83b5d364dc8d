import { issuePasswordReset, RESET_TTL_MS } from '../../core/accounts/password-reset.ts';
import { isAppError } from '../../core/kernel/errors.ts';
import { runTool } from '../command.ts';

/** The way back in for the locked out; it signs them out everywhere. */
export async function userResetPassword(opts: { email: string; json?: boolean }, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  await runTool(
    'svc user reset-password',
    { env },
    async ({ core, services }) => {
      const r = await issuePasswordReset(services.accounts, opts.email, core.config.SERVICE_APP_ORIGIN);
      process.stdout.write(
        opts.json
          ? JSON.stringify(r, null, 2) + '\n'
          : `password reset link for ${r.email} (works once, for ${RESET_TTL_MS / 60_000} minutes; hand it over privately):\n${r.url}\n` +
              'opening it and choosing a new password signs the account out everywhere\n',
      );
    },
    (e) => (isAppError(e) && e.status === 404 ? `no account with the address ${opts.email}` : e.message),
  );
}
