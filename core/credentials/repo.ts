import type { Queryable } from '../store/types.ts';
import type { CredentialKind } from './types.ts';

/** The only SQL on the credentials table. */

export interface CredentialRow {
  id: string;
  kind: CredentialKind;
  user_id: string;
  workspace_id: string | null;
  name: string;
  preview: string;
  scopes: string;
  limits: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}
const COLUMNS = 'id, kind, user_id, workspace_id, name, preview, scopes, limits, created_at, expires_at, revoked_at, last_used_at';

export async function insertCredential(
  q: Queryable,
  c: { id: string; kind: CredentialKind; userId: string; workspaceId: string | null; name: string; tokenHash: string; preview: string; scopes: string; limits: string; createdAt: string; expiresAt: string | null },
): Promise<void> {
  await q.run(
    `INSERT INTO credentials (id, kind, user_id, workspace_id, name, token_hash, preview, scopes, limits, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [c.id, c.kind, c.userId, c.workspaceId, c.name, c.tokenHash, c.preview, c.scopes, c.limits, c.createdAt, c.expiresAt],
  );
}

export async function credentialById(q: Queryable, id: string): Promise<CredentialRow | undefined> {
  return q.one<CredentialRow>(`SELECT ${COLUMNS} FROM credentials WHERE id = ?`, [id]);
}

/** Newest first; each filter given narrows the list. */
export async function credentialsOfKind(q: Queryable, kind: CredentialKind, filter: { userId?: string; workspaceId?: string }): Promise<CredentialRow[]> {
  const where = ['kind = ?'];
  const params: string[] = [kind];
  if (filter.userId) where.push('user_id = ?'), params.push(filter.userId);
  if (filter.workspaceId) where.push('workspace_id = ?'), params.push(filter.workspaceId);
  return q.all<CredentialRow>(`SELECT ${COLUMNS} FROM credentials WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id`, params);
}

/** The unrevoked, unexpired credential of this kind with this keyed token hash. */
export async function liveCredentialByHash(q: Queryable, tokenHash: string, kind: CredentialKind, nowIso: string): Promise<CredentialRow | undefined> {
  return q.one<CredentialRow>(
    `SELECT ${COLUMNS} FROM credentials WHERE token_hash = ? AND kind = ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)`,
    [tokenHash, kind, nowIso],
  );
}

export async function revokeCredentialRow(q: Queryable, id: string, nowIso: string): Promise<void> {
  await q.run('UPDATE credentials SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [nowIso, id]);
}

/** Member keys die with the membership and with the viewer role. */
export async function revokeMemberKeys(q: Queryable, workspaceId: string, userId: string, nowIso: string): Promise<void> {
  await q.run("UPDATE credentials SET revoked_at = ? WHERE kind = 'member' AND workspace_id = ? AND user_id = ? AND revoked_at IS NULL", [nowIso, workspaceId, userId]);
}

export async function touchLastUsed(q: Queryable, id: string, nowIso: string): Promise<void> {
  await q.run('UPDATE credentials SET last_used_at = ? WHERE id = ?', [nowIso, id]);
}
