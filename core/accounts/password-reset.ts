import { issueToken, tokenHash, wellFormed } from '../auth/tokens.ts';
import { AppError, badRequest, notFound } from '../errors.ts';
import { normalizeEmail } from './email.ts';
import { MIN_PASSWORD } from './password-change.ts';
import { endUserSessions } from './sessions.ts';
import type { AccountsDeps } from './types.ts';

/** An operator's reset link is a credential: short-lived and single-use. */
export const RESET_TTL_MS = 60 * 60 * 1000;

export interface IssuedReset {
  email: string;
  token: string;
  url: string;
  expiresAt: string;
}

/** The one answer for every unusable link, so a guess learns nothing about which case it hit. */
const invalidLink = () => new AppError('reset_link_invalid', 'This password reset link is not valid: it is unknown, used or expired. Ask an operator for a new one.');

/** A one-time link for the account with `email`; an earlier unused link of that account stops working. */
export async function issuePasswordReset(deps: Pick<AccountsDeps, 'db' | 'clock' | 'tokenKey'>, email: string, appOrigin: string): Promise<IssuedReset> {
  const address = normalizeEmail(email);
  const user = await deps.db.one<{ id: string }>('SELECT id FROM users WHERE email = ?', [address]);
  if (!user) throw notFound('Account');
  const token = issueToken('reset');
  const now = deps.clock.now();
  const expiresAt = new Date(now + RESET_TTL_MS).toISOString();
  await deps.db.tx(async (q) => {
    await q.run('DELETE FROM password_resets WHERE user_id = ?', [user.id]);
    await q.run('INSERT INTO password_resets (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)', [
      tokenHash(deps.tokenKey, token), user.id, new Date(now).toISOString(), expiresAt,
    ]);
  });
  return { email: address, token, url: `${new URL('/reset-password', appOrigin)}?token=${token}`, expiresAt };
}

/** Sets a new password through a reset link (once), and signs the account out everywhere. */
export async function resetPassword(deps: AccountsDeps, token: string, newPassword: string): Promise<{ userId: string }> {
  if (newPassword.length < MIN_PASSWORD) throw badRequest('weak_password', `newPassword must have at least ${MIN_PASSWORD} characters.`, 'newPassword');
  if (!wellFormed(token, 'reset')) throw invalidLink();
  const now = new Date(deps.clock.now()).toISOString();
  // Claimed before the (slow) hash with one conditional UPDATE: two uses of one link cannot both win.
  const claimed = await deps.db.one<{ user_id: string }>(
    'UPDATE password_resets SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING user_id',
    [now, tokenHash(deps.tokenKey, token), now],
  );
  if (!claimed) throw invalidLink();
  const hash = await deps.hasher.hash(newPassword);
  await deps.db.run('UPDATE users SET password_hash = ? WHERE id = ?', [hash, claimed.user_id]);
  await endUserSessions(deps, claimed.user_id);
  return { userId: claimed.user_id };
}
