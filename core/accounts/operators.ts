import type { Queryable } from '../store/types.ts';
import { operatorMembership } from './repo.ts';
import { atLeast } from './roles.ts';

/**
 * Operators are admins and owners of the operator workspace (the bootstrap account's). Checked
 * against that workspace whatever workspace a request acts in, so metrics and admin tokens never
 * depend on the x-workspace-id header. Returns the operator workspace id when the user is one.
 */
export async function operatorOf(q: Queryable, userId: string): Promise<string | undefined> {
  const row = await operatorMembership(q, userId);
  return row && atLeast(row.role, 'admin') ? row.id : undefined;
}
