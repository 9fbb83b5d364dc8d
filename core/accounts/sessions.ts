import { createHmac } from 'node:crypto';
import { issueToken, safeEqual, tokenHash, wellFormed } from '../auth/tokens.ts';
import type { AccountsDeps, User } from './types.ts';

export const SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;

/**
 * The CSRF value is an HMAC of the session token (signed double-submit): a script on another
 * origin can neither read the cookie nor compute the value, and a value from one session is
 * worthless in another.
 */
export function csrfToken(csrfKey: Buffer, sessionToken: string): string {
  return createHmac('sha256', csrfKey).update(sessionToken).digest('base64url');
}

export function csrfValid(csrfKey: Buffer, sessionToken: string, header: string | undefined): boolean {
  return header !== undefined && safeEqual(csrfToken(csrfKey, sessionToken), header);
}

/** `activeWorkspaceId`: the workspace the session acts in until switched (default: the user's own). */
export async function createSession(deps: AccountsDeps, userId: string, activeWorkspaceId?: string): Promise<{ token: string; csrf: string; expiresAt: string }> {
  const token = issueToken('session');
  const now = deps.clock.now();
  const expiresAt = new Date(now + SESSION_TTL_MS).toISOString();
  await deps.db.run('INSERT INTO sessions (id_hash, user_id, created_at, expires_at, active_workspace_id) VALUES (?, ?, ?, ?, ?)', [
    tokenHash(deps.tokenKey, token),
    userId,
    new Date(now).toISOString(),
    expiresAt,
    activeWorkspaceId ?? null,
  ]);
  return { token, csrf: csrfToken(deps.csrfKey, token), expiresAt };
}

export async function sessionUser(deps: AccountsDeps, token: string | undefined): Promise<User | undefined> {
  if (!token || !wellFormed(token, 'session')) return undefined;
  return deps.db.one<User>(
    `SELECT u.id, u.email, u.name FROM sessions s JOIN users u ON u.id = s.user_id
      WHERE s.id_hash = ? AND s.expires_at > ?`,
    [tokenHash(deps.tokenKey, token), new Date(deps.clock.now()).toISOString()],
  );
}

export async function endSession(deps: AccountsDeps, token: string): Promise<void> {
  if (!wellFormed(token, 'session')) return;
  await deps.db.run('DELETE FROM sessions WHERE id_hash = ?', [tokenHash(deps.tokenKey, token)]);
}

/** The signed-in user and the workspace the session was switched to (null: the user's own). */
export async function sessionOf(deps: AccountsDeps, token: string | undefined): Promise<{ user: User; activeWorkspaceId: string | null } | undefined> {
  if (!token || !wellFormed(token, 'session')) return undefined;
  const row = await deps.db.one<User & { active_workspace_id: string | null }>(
    `SELECT u.id, u.email, u.name, s.active_workspace_id FROM sessions s JOIN users u ON u.id = s.user_id
      WHERE s.id_hash = ? AND s.expires_at > ?`,
    [tokenHash(deps.tokenKey, token), new Date(deps.clock.now()).toISOString()],
  );
  return row && { user: { id: row.id, email: row.email, name: row.name }, activeWorkspaceId: row.active_workspace_id };
}

/** Remembers the workspace a session acts in (the caller checked the membership). */
export async function setActiveWorkspace(deps: AccountsDeps, token: string, workspaceId: string): Promise<void> {
  if (!wellFormed(token, 'session')) return;
  await deps.db.run('UPDATE sessions SET active_workspace_id = ? WHERE id_hash = ?', [workspaceId, tokenHash(deps.tokenKey, token)]);
}

/** Ends every session of the user but `keep` (after a password change), or all of them. */
export async function endUserSessions(deps: AccountsDeps, userId: string, keep?: string): Promise<number> {
  const r = keep && wellFormed(keep, 'session')
    ? await deps.db.run('DELETE FROM sessions WHERE user_id = ? AND id_hash <> ?', [userId, tokenHash(deps.tokenKey, keep)])
    : await deps.db.run('DELETE FROM sessions WHERE user_id = ?', [userId]);
  return r.changes;
}
