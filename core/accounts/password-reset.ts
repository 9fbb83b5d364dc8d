import { issueToken, tokenHash, wellFormed } from '../auth/tokens.ts';
import { AppError, badRequest, notFound } from '../kernel/errors.ts';
import { normalizeEmail } from './email.ts';
import { MIN_PASSWORD } from './password-change.ts';
import { claimPasswordReset, deletePasswordResets, insertPasswordReset, setPasswordHash, userIdByEmail } from './repo.ts';
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

/** One answer for every unusable link: a guess learns nothing. */
const invalidLink = () => new AppError('reset_link_invalid', 'This password reset link is not valid: it is unknown, used or expired. Ask an operator for a new one.');

/** A one-time link; the account's earlier unused link stops working. */
export async function issuePasswordReset(deps: Pick<AccountsDeps, 'db' | 'clock' | 'tokenKey'>, email: string, appOrigin: string): Promise<IssuedReset> {
  const address = normalizeEmail(email);
  const user = await userIdByEmail(deps.db, address);
  if (!user) throw notFound('Account');
  const token = issueToken('reset');
  const now = deps.clock.now();
  const expiresAt = new Date(now + RESET_TTL_MS).toISOString();
  await deps.db.tx(async (q) => {
    await deletePasswordResets(q, user.id);
    await insertPasswordReset(q, { tokenHash: tokenHash(deps.tokenKey, token), userId: user.id, createdAt: new Date(now).toISOString(), expiresAt });
  });
  return { email: address, token, url: `${new URL('/reset-password', appOrigin)}?token=${token}`, expiresAt };
}

/** Sets the password once per link and signs out everywhere. */
export async function resetPassword(deps: AccountsDeps, token: string, newPassword: string): Promise<{ userId: string }> {
  if (newPassword.length < MIN_PASSWORD) throw badRequest('weak_password', `newPassword must have at least ${MIN_PASSWORD} characters.`, 'newPassword');
  if (!wellFormed(token, 'reset')) throw invalidLink();
  const now = new Date(deps.clock.now()).toISOString();
  // Claimed before the slow hash, atomically: two uses cannot both win.
  const claimed = await claimPasswordReset(deps.db, tokenHash(deps.tokenKey, token), now);
  if (!claimed) throw invalidLink();
  const hash = await deps.hasher.hash(newPassword);
  await setPasswordHash(deps.db, claimed.user_id, hash);
  await endUserSessions(deps, claimed.user_id);
  return { userId: claimed.user_id };
}
