import type { Queryable } from '../store/types.ts';
import { operatorMembership } from './repo.ts';
import { atLeast } from './roles.ts';

/**
 * The operator workspace id if the user administers it, whatever x-workspace-id says:
 * metrics and admin tokens must not depend on that header.
 */
export async function operatorOf(q: Queryable, userId: string): Promise<string | undefined> {
  const row = await operatorMembership(q, userId);
  return row && atLeast(row.role, 'admin') ? row.id : undefined;
}
