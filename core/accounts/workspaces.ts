import { newId } from '../kernel/ids.ts';
import type { Queryable } from '../store/types.ts';
import { insertMembership, insertWorkspace, workspaceRowOf, workspaceRowsOf, type WorkspaceRow } from './repo.ts';
import type { Role } from './roles.ts';
import type { WorkspaceRef } from './types.ts';

export async function createWorkspace(q: Queryable, owner: { id: string; name: string }, opts: { operator: boolean; now: string }): Promise<string> {
  const id = newId('ws');
  await insertWorkspace(q, { id, name: `${owner.name}'s workspace`, isOperator: opts.operator, createdBy: owner.id, createdAt: opts.now });
  await addMember(q, id, owner.id, 'owner', opts.now);
  return id;
}

export async function addMember(q: Queryable, workspaceId: string, userId: string, role: Role, now: string): Promise<void> {
  await insertMembership(q, workspaceId, userId, role, now);
}

const toRef = (r: WorkspaceRow, userId: string): WorkspaceRef => ({ id: r.id, name: r.name, role: r.role, operator: r.is_operator === 1, own: r.created_by === userId });

export async function workspacesOf(q: Queryable, userId: string): Promise<WorkspaceRef[]> {
  return (await workspaceRowsOf(q, userId)).map((r) => toRef(r, userId));
}

export async function membership(q: Queryable, workspaceId: string, userId: string): Promise<WorkspaceRef | undefined> {
  const r = await workspaceRowOf(q, workspaceId, userId);
  return r && toRef(r, userId);
}
