import type { Queryable } from '../store/types.ts';

/** The only SQL on shares. */

export type ShareKind = 'run' | 'conversation';

export interface ShareRow {
  id: string;
  kind: ShareKind;
  target_id: string;
  preview: string;
  created_at: string;
  revoked_at: string | null;
}
const COLUMNS = 'id, kind, target_id, preview, created_at, revoked_at';

/** The workspace of the run or conversation if `userId` owns it (reads their tables). */
export async function ownedTargetWorkspace(q: Queryable, kind: ShareKind, id: string, userId: string): Promise<string | undefined> {
  const table = kind === 'run' ? 'runs' : 'conversations';
  const row = await q.one<{ workspace_id: string }>(`SELECT workspace_id FROM ${table} WHERE id = ? AND user_id = ?`, [id, userId]);
  return row?.workspace_id;
}

export async function insertShare(
  q: Queryable,
  s: { id: string; workspace_id: string; user_id: string; kind: ShareKind; target_id: string; token_hash: string; preview: string; created_at: string },
): Promise<void> {
  await q.run(
    'INSERT INTO shares (id, workspace_id, user_id, kind, target_id, token_hash, preview, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [s.id, s.workspace_id, s.user_id, s.kind, s.target_id, s.token_hash, s.preview, s.created_at],
  );
}

/** The user's links, newest first, revoked ones included. */
export async function sharesOfUser(q: Queryable, userId: string): Promise<ShareRow[]> {
  return q.all<ShareRow>(`SELECT ${COLUMNS} FROM shares WHERE user_id = ? ORDER BY created_at DESC, id DESC`, [userId]);
}

/** Revokes the user's link if it is still active; a no-op otherwise. */
export async function revokeShareRow(q: Queryable, id: string, userId: string, at: string): Promise<void> {
  await q.run('UPDATE shares SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL', [at, id, userId]);
}

export async function shareOfUser(q: Queryable, id: string, userId: string): Promise<ShareRow | undefined> {
  return q.one<ShareRow>(`SELECT ${COLUMNS} FROM shares WHERE id = ? AND user_id = ?`, [id, userId]);
}

/** The active link with this token hash. */
export async function activeShareByHash(q: Queryable, hash: string): Promise<{ kind: ShareKind; target_id: string; created_at: string } | undefined> {
  return q.one<{ kind: ShareKind; target_id: string; created_at: string }>(
    'SELECT kind, target_id, created_at FROM shares WHERE token_hash = ? AND revoked_at IS NULL',
    [hash],
  );
}
