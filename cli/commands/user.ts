import { issuePasswordReset, RESET_TTL_MS } from '../../core/accounts/password-reset.ts';
import { isAppError } from '../../core/errors.ts';
import type { Core } from '../../core/index.ts';
import { CliError, openStoreCore } from './invite-store.ts';

/**
 * `svc user reset-password --email E`: the way back in for someone locked out, from the terminal
 * of whoever runs the service. Prints a one-time link (an hour); using it signs the account out
 * everywhere. Exit 0, or 1 with one line on stderr.
 */
export async function userResetPassword(opts: { email: string; json?: boolean }, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let core: Core | undefined;
  try {
    core = await openStoreCore(env);
    const r = await issuePasswordReset({ db: core.db, clock: core.clock, tokenKey: core.auth.tokenKey }, opts.email, core.config.SERVICE_APP_ORIGIN);
    process.stdout.write(
      opts.json
        ? JSON.stringify(r, null, 2) + '\n'
        : `password reset link for ${r.email} (works once, for ${RESET_TTL_MS / 60_000} minutes; hand it over privately):\n${r.url}\n` +
            'opening it and choosing a new password signs the account out everywhere\n',
    );
  } catch (e) {
    if (!(e instanceof CliError) && !isAppError(e)) throw e;
    const msg = isAppError(e) && e.status === 404 ? `no account with the address ${opts.email}` : e.message;
    process.stderr.write(`svc user reset-password: ${msg}\n`);
    process.exitCode = 1;
  } finally {
    await core?.close().catch(() => {});
  }
}
