import { newId } from '../ids.ts';
import type { Queryable } from '../store/types.ts';
import type { Role } from './roles.ts';
import type { WorkspaceRef } from './types.ts';

export async function createWorkspace(q: Queryable, owner: { id: string; name: string }, opts: { operator: boolean; now: string }): Promise<string> {
  const id = newId('ws');
  await q.run('INSERT INTO workspaces (id, name, is_operator, created_by, created_at) VALUES (?, ?, ?, ?, ?)', [
    id,
    `${owner.name}'s workspace`,
    opts.operator ? 1 : 0,
    owner.id,
    opts.now,
  ]);
  await addMember(q, id, owner.id, 'owner', opts.now);
  return id;
}

export async function addMember(q: Queryable, workspaceId: string, userId: string, role: Role, now: string): Promise<void> {
  await q.run('INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES (?, ?, ?, ?)', [workspaceId, userId, role, now]);
}

interface WorkspaceRow {
  id: string;
  name: string;
  role: Role;
  is_operator: number;
  created_by: string;
}

export async function workspacesOf(q: Queryable, userId: string): Promise<WorkspaceRef[]> {
  const rows = await q.all<WorkspaceRow>(
    `SELECT w.id, w.name, m.role, w.is_operator, w.created_by
       FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
      WHERE m.user_id = ? ORDER BY w.created_at, w.id`,
    [userId],
  );
  return rows.map((r) => ({ id: r.id, name: r.name, role: r.role, operator: r.is_operator === 1, own: r.created_by === userId }));
}

export async function membership(q: Queryable, workspaceId: string, userId: string): Promise<WorkspaceRef | undefined> {
  const r = await q.one<WorkspaceRow>(
    `SELECT w.id, w.name, m.role, w.is_operator, w.created_by
       FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
      WHERE m.workspace_id = ? AND m.user_id = ?`,
    [workspaceId, userId],
  );
  return r && { id: r.id, name: r.name, role: r.role, operator: r.is_operator === 1, own: r.created_by === userId };
}
