import { createHmac } from 'node:crypto';
import { issueToken, safeEqual, tokenHash, wellFormed } from '../auth/tokens.ts';
import { deleteSession, deleteUserSessions, deleteUserSessionsBut, insertSession, liveSession, setSessionWorkspace, userOfSession } from './repo.ts';
import type { AccountsDeps, User } from './types.ts';

export const SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;

/** Signed double-submit: another origin cannot compute it, nor reuse it across sessions. */
export function csrfToken(csrfKey: Buffer, sessionToken: string): string {
  return createHmac('sha256', csrfKey).update(sessionToken).digest('base64url');
}

export function csrfValid(csrfKey: Buffer, sessionToken: string, header: string | undefined): boolean {
  return header !== undefined && safeEqual(csrfToken(csrfKey, sessionToken), header);
}

/** `activeWorkspaceId` defaults to the user's own workspace. */
export async function createSession(deps: AccountsDeps, userId: string, activeWorkspaceId?: string): Promise<{ token: string; csrf: string; expiresAt: string }> {
  const token = issueToken('session');
  const now = deps.clock.now();
  const expiresAt = new Date(now + SESSION_TTL_MS).toISOString();
  await insertSession(deps.db, {
    idHash: tokenHash(deps.tokenKey, token),
    userId,
    createdAt: new Date(now).toISOString(),
    expiresAt,
    activeWorkspaceId: activeWorkspaceId ?? null,
  });
  return { token, csrf: csrfToken(deps.csrfKey, token), expiresAt };
}

export async function sessionUser(deps: AccountsDeps, token: string | undefined): Promise<User | undefined> {
  if (!token || !wellFormed(token, 'session')) return undefined;
  return userOfSession(deps.db, tokenHash(deps.tokenKey, token), new Date(deps.clock.now()).toISOString());
}

export async function endSession(deps: AccountsDeps, token: string): Promise<void> {
  if (!wellFormed(token, 'session')) return;
  await deleteSession(deps.db, tokenHash(deps.tokenKey, token));
}

/** The user and the switched-to workspace (null: the user's own). */
export async function sessionOf(deps: AccountsDeps, token: string | undefined): Promise<{ user: User; activeWorkspaceId: string | null } | undefined> {
  if (!token || !wellFormed(token, 'session')) return undefined;
  const row = await liveSession(deps.db, tokenHash(deps.tokenKey, token), new Date(deps.clock.now()).toISOString());
  return row && { user: { id: row.id, email: row.email, name: row.name }, activeWorkspaceId: row.active_workspace_id };
}

/** The caller has checked the membership. */
export async function setActiveWorkspace(deps: AccountsDeps, token: string, workspaceId: string): Promise<void> {
  if (!wellFormed(token, 'session')) return;
  await setSessionWorkspace(deps.db, tokenHash(deps.tokenKey, token), workspaceId);
}

/** Ends the user's sessions, all but `keep` if given. */
export async function endUserSessions(deps: AccountsDeps, userId: string, keep?: string): Promise<number> {
  return keep && wellFormed(keep, 'session')
    ? deleteUserSessionsBut(deps.db, userId, tokenHash(deps.tokenKey, keep))
    : deleteUserSessions(deps.db, userId);
}
