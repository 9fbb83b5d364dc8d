import type { Queryable } from '../store/types.ts';
import { atLeast, type Role } from './roles.ts';

/**
 * Operators are admins and owners of the operator workspace (the bootstrap account's). Checked
 * against that workspace whatever workspace a request acts in, so metrics and admin tokens never
 * depend on the x-workspace-id header. Returns the operator workspace id when the user is one.
 */
export async function operatorOf(q: Queryable, userId: string): Promise<string | undefined> {
  const row = await q.one<{ id: string; role: Role }>(
    `SELECT w.id, m.role FROM workspaces w JOIN memberships m ON m.workspace_id = w.id
      WHERE w.is_operator = 1 AND m.user_id = ?`,
    [userId],
  );
  return row && atLeast(row.role, 'admin') ? row.id : undefined;
}
