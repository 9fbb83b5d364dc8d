import type { Queryable } from '../store/types.ts';
import type { Role } from './roles.ts';

/** The only SQL on users, sessions, memberships, workspaces and password_resets. */

export interface WorkspaceRow {
  id: string;
  name: string;
  role: Role;
  is_operator: number;
  created_by: string;
}

// users

/** Any account at all? (an empty store bootstraps its operator) */
export async function hasUsers(q: Queryable): Promise<boolean> {
  return !!(await q.one('SELECT 1 AS x FROM users LIMIT 1'));
}

export async function emailInUse(q: Queryable, email: string): Promise<boolean> {
  return !!(await q.one('SELECT 1 AS x FROM users WHERE email = ?', [email]));
}

export async function userIdByEmail(q: Queryable, email: string): Promise<{ id: string } | undefined> {
  return q.one<{ id: string }>('SELECT id FROM users WHERE email = ?', [email]);
}

export async function userForLogin(q: Queryable, email: string): Promise<{ id: string; email: string; name: string; password_hash: string } | undefined> {
  return q.one('SELECT id, email, name, password_hash FROM users WHERE email = ?', [email]);
}

export async function passwordHashOf(q: Queryable, userId: string): Promise<{ password_hash: string } | undefined> {
  return q.one<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = ?', [userId]);
}

export async function insertUser(q: Queryable, u: { id: string; email: string; name: string; passwordHash: string; createdAt: string }): Promise<void> {
  await q.run('INSERT INTO users (id, email, name, password_hash, created_at) VALUES (?, ?, ?, ?, ?)', [u.id, u.email, u.name, u.passwordHash, u.createdAt]);
}

export async function setPasswordHash(q: Queryable, userId: string, hash: string): Promise<void> {
  await q.run('UPDATE users SET password_hash = ? WHERE id = ?', [hash, userId]);
}

// sessions (keyed by the token's keyed hash)

export async function insertSession(q: Queryable, s: { idHash: string; userId: string; createdAt: string; expiresAt: string; activeWorkspaceId: string | null }): Promise<void> {
  await q.run('INSERT INTO sessions (id_hash, user_id, created_at, expires_at, active_workspace_id) VALUES (?, ?, ?, ?, ?)', [
    s.idHash,
    s.userId,
    s.createdAt,
    s.expiresAt,
    s.activeWorkspaceId,
  ]);
}

export async function userOfSession(q: Queryable, idHash: string, nowIso: string): Promise<{ id: string; email: string; name: string } | undefined> {
  return q.one(
    `SELECT u.id, u.email, u.name FROM sessions s JOIN users u ON u.id = s.user_id
      WHERE s.id_hash = ? AND s.expires_at > ?`,
    [idHash, nowIso],
  );
}

export async function liveSession(
  q: Queryable,
  idHash: string,
  nowIso: string,
): Promise<{ id: string; email: string; name: string; active_workspace_id: string | null } | undefined> {
  return q.one(
    `SELECT u.id, u.email, u.name, s.active_workspace_id FROM sessions s JOIN users u ON u.id = s.user_id
      WHERE s.id_hash = ? AND s.expires_at > ?`,
    [idHash, nowIso],
  );
}

export async function setSessionWorkspace(q: Queryable, idHash: string, workspaceId: string): Promise<void> {
  await q.run('UPDATE sessions SET active_workspace_id = ? WHERE id_hash = ?', [workspaceId, idHash]);
}

export async function deleteSession(q: Queryable, idHash: string): Promise<void> {
  await q.run('DELETE FROM sessions WHERE id_hash = ?', [idHash]);
}

export async function deleteUserSessions(q: Queryable, userId: string): Promise<number> {
  return (await q.run('DELETE FROM sessions WHERE user_id = ?', [userId])).changes;
}

export async function deleteUserSessionsBut(q: Queryable, userId: string, keepIdHash: string): Promise<number> {
  return (await q.run('DELETE FROM sessions WHERE user_id = ? AND id_hash <> ?', [userId, keepIdHash])).changes;
}

export async function pruneExpiredSessions(q: Queryable, beforeIso: string): Promise<number> {
  return (await q.run('DELETE FROM sessions WHERE expires_at < ?', [beforeIso])).changes;
}

// workspaces

export async function insertWorkspace(q: Queryable, w: { id: string; name: string; isOperator: boolean; createdBy: string; createdAt: string }): Promise<void> {
  await q.run('INSERT INTO workspaces (id, name, is_operator, created_by, created_at) VALUES (?, ?, ?, ?, ?)', [
    w.id,
    w.name,
    w.isOperator ? 1 : 0,
    w.createdBy,
    w.createdAt,
  ]);
}

export async function workspaceById(q: Queryable, id: string): Promise<{ id: string; name: string } | undefined> {
  return q.one<{ id: string; name: string }>('SELECT id, name FROM workspaces WHERE id = ?', [id]);
}

/** Workspaces whose id or name is `wanted`, oldest first. */
export async function workspacesByIdOrName(q: Queryable, wanted: string): Promise<{ id: string; name: string }[]> {
  return q.all<{ id: string; name: string }>('SELECT id, name FROM workspaces WHERE id = ? OR name = ? ORDER BY created_at', [wanted, wanted]);
}

export async function operatorWorkspace(q: Queryable): Promise<{ id: string; name: string } | undefined> {
  return q.one<{ id: string; name: string }>('SELECT id, name FROM workspaces WHERE is_operator = 1');
}

/** The user's role in the operator workspace, if they are a member there. */
export async function operatorMembership(q: Queryable, userId: string): Promise<{ id: string; role: Role } | undefined> {
  return q.one<{ id: string; role: Role }>(
    `SELECT w.id, m.role FROM workspaces w JOIN memberships m ON m.workspace_id = w.id
      WHERE w.is_operator = 1 AND m.user_id = ?`,
    [userId],
  );
}

export async function workspaceRowsOf(q: Queryable, userId: string): Promise<WorkspaceRow[]> {
  return q.all<WorkspaceRow>(
    `SELECT w.id, w.name, m.role, w.is_operator, w.created_by
       FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
      WHERE m.user_id = ? ORDER BY w.created_at, w.id`,
    [userId],
  );
}

export async function workspaceRowOf(q: Queryable, workspaceId: string, userId: string): Promise<WorkspaceRow | undefined> {
  return q.one<WorkspaceRow>(
    `SELECT w.id, w.name, m.role, w.is_operator, w.created_by
       FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
      WHERE m.workspace_id = ? AND m.user_id = ?`,
    [workspaceId, userId],
  );
}

// memberships

export async function insertMembership(q: Queryable, workspaceId: string, userId: string, role: Role, now: string): Promise<void> {
  await q.run('INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES (?, ?, ?, ?)', [workspaceId, userId, role, now]);
}

export async function memberRows(q: Queryable, workspaceId: string): Promise<{ user_id: string; email: string; name: string; role: Role; created_at: string }[]> {
  return q.all(
    `SELECT m.user_id, u.email, u.name, m.role, m.created_at
       FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.workspace_id = ? ORDER BY m.created_at, u.email`,
    [workspaceId],
  );
}

export async function isMemberByEmail(q: Queryable, workspaceId: string, email: string): Promise<boolean> {
  return !!(await q.one('SELECT 1 AS x FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = ? AND u.email = ?', [workspaceId, email]));
}

export async function memberRole(q: Queryable, workspaceId: string, userId: string): Promise<{ role: Role } | undefined> {
  return q.one<{ role: Role }>('SELECT role FROM memberships WHERE workspace_id = ? AND user_id = ?', [workspaceId, userId]);
}

// PostgreSQL locks the rows read; SQLite's write transaction already serialises.
const forUpdate = (q: Queryable) => (q.dialect === 'postgres' ? ' FOR UPDATE' : '');

/** The workspace's owners, rows locked until the transaction ends. */
export async function lockOwners(q: Queryable, workspaceId: string): Promise<{ user_id: string }[]> {
  return q.all<{ user_id: string }>(`SELECT user_id FROM memberships WHERE workspace_id = ? AND role = 'owner'${forUpdate(q)}`, [workspaceId]);
}

/** The member's role, row locked until the transaction ends. */
export async function lockMemberRole(q: Queryable, workspaceId: string, userId: string): Promise<{ role: Role } | undefined> {
  return q.one<{ role: Role }>(`SELECT role FROM memberships WHERE workspace_id = ? AND user_id = ?${forUpdate(q)}`, [workspaceId, userId]);
}

export async function setMemberRole(q: Queryable, workspaceId: string, userId: string, role: Role): Promise<void> {
  await q.run('UPDATE memberships SET role = ? WHERE workspace_id = ? AND user_id = ?', [role, workspaceId, userId]);
}

export async function deleteMembership(q: Queryable, workspaceId: string, userId: string): Promise<void> {
  await q.run('DELETE FROM memberships WHERE workspace_id = ? AND user_id = ?', [workspaceId, userId]);
}

// password_resets

export async function deletePasswordResets(q: Queryable, userId: string): Promise<void> {
  await q.run('DELETE FROM password_resets WHERE user_id = ?', [userId]);
}

export async function insertPasswordReset(q: Queryable, r: { tokenHash: string; userId: string; createdAt: string; expiresAt: string }): Promise<void> {
  await q.run('INSERT INTO password_resets (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)', [r.tokenHash, r.userId, r.createdAt, r.expiresAt]);
}

/** Spends an unused, unexpired link in one conditional UPDATE; its user if so. */
export async function claimPasswordReset(q: Queryable, tokenHash: string, nowIso: string): Promise<{ user_id: string } | undefined> {
  return q.one<{ user_id: string }>(
    'UPDATE password_resets SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING user_id',
    [nowIso, tokenHash, nowIso],
  );
}
