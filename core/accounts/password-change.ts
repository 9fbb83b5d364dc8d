import { AppError, badRequest } from '../kernel/errors.ts';
import { passwordHashOf, setPasswordHash } from './repo.ts';
import { endUserSessions } from './sessions.ts';
import type { AccountsDeps } from './types.ts';

export const MIN_PASSWORD = 8;

/** Ends every other session: whoever knew the old password is signed out. */
export async function changePassword(
  deps: AccountsDeps,
  input: { userId: string; currentPassword: string; newPassword: string; keepSession: string },
): Promise<{ sessionsEnded: number }> {
  if (input.newPassword.length < MIN_PASSWORD) throw badRequest('weak_password', `newPassword must have at least ${MIN_PASSWORD} characters.`, 'newPassword');
  const row = await passwordHashOf(deps.db, input.userId);
  if (!row || !(await deps.hasher.verify(input.currentPassword, row.password_hash))) {
    throw new AppError('wrong_password', 'The current password is not correct.', { field: 'currentPassword' });
  }
  const hash = await deps.hasher.hash(input.newPassword);
  await setPasswordHash(deps.db, input.userId, hash);
  return { sessionsEnded: await endUserSessions(deps, input.userId, input.keepSession) };
}
