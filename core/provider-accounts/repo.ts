import type { Queryable, SqlValue } from '../store/types.ts';
import type { AccountRow } from './types.ts';

/** The only SQL on provider_accounts. */

const ACCOUNT_COLUMNS = 'id, workspace_id, provider, name, slug, base_url, api_key_enc, key_last4, models, enabled, created_at, updated_at';

/** A new enabled account; a taken slug throws UniqueViolation. */
export async function insertAccount(
  q: Queryable,
  r: Omit<AccountRow, 'enabled' | 'updated_at'> & { created_by: string },
): Promise<void> {
  await q.run(
    `INSERT INTO provider_accounts (id, workspace_id, provider, name, slug, base_url, api_key_enc, key_last4, models, enabled, created_by, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)`,
    [r.id, r.workspace_id, r.provider, r.name, r.slug, r.base_url, r.api_key_enc, r.key_last4, r.models, r.created_by, r.created_at, r.created_at],
  );
}

/** A live account of the workspace. */
export async function accountRow(q: Queryable, workspaceId: string, id: string): Promise<AccountRow | undefined> {
  return q.one<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM provider_accounts WHERE id = ? AND workspace_id = ? AND deleted_at IS NULL`, [id, workspaceId]);
}

/** The workspace's live accounts, oldest first. */
export async function accountRows(q: Queryable, workspaceId: string): Promise<AccountRow[]> {
  return q.all<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM provider_accounts WHERE workspace_id = ? AND deleted_at IS NULL ORDER BY created_at, id`, [workspaceId]);
}

/** Sets the given columns (in their order) on the workspace's account. */
export async function updateAccountColumns(q: Queryable, workspaceId: string, id: string, cols: Record<string, SqlValue>): Promise<void> {
  const sets: string[] = [];
  const params: SqlValue[] = [];
  for (const [k, v] of Object.entries(cols)) sets.push(`${k} = ?`), params.push(v);
  await q.run(`UPDATE provider_accounts SET ${sets.join(', ')} WHERE id = ? AND workspace_id = ?`, [...params, id, workspaceId]);
}

/** Soft delete (and disable); false when the account was not live. */
export async function softDeleteAccount(q: Queryable, workspaceId: string, id: string, at: string): Promise<boolean> {
  const r = await q.run('UPDATE provider_accounts SET deleted_at = ?, enabled = 0 WHERE id = ? AND workspace_id = ? AND deleted_at IS NULL', [at, id, workspaceId]);
  return r.changes === 1;
}
