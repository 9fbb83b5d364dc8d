import { AppError, forbidden, notFound } from '../errors.ts';
import type { Db, Queryable } from '../store/types.ts';
import { atLeast, outranks, type Role } from './roles.ts';

export interface Member {
  userId: string;
  email: string;
  name: string;
  role: Role;
  joinedAt: string;
}

export async function listMembers(q: Queryable, workspaceId: string): Promise<Member[]> {
  const rows = await q.all<{ user_id: string; email: string; name: string; role: Role; created_at: string }>(
    `SELECT m.user_id, u.email, u.name, m.role, m.created_at
       FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.workspace_id = ? ORDER BY m.created_at, u.email`,
    [workspaceId],
  );
  return rows.map((r) => ({ userId: r.user_id, email: r.email, name: r.name, role: r.role, joinedAt: r.created_at }));
}

/**
 * Nobody acts on a member of a higher role than their own — limits, keys, admin tokens (role changes
 * and removals follow mayManage below). 403 when `targetUserId`'s role in the workspace outranks the
 * actor's; a non-member (or the actor themselves) passes. Returns the target's role, if any.
 */
export async function assertMayActOn(q: Queryable, workspaceId: string, actor: { userId: string; role: Role }, targetUserId: string): Promise<Role | undefined> {
  const row = await q.one<{ role: Role }>('SELECT role FROM memberships WHERE workspace_id = ? AND user_id = ?', [workspaceId, targetUserId]);
  if (row && targetUserId !== actor.userId && outranks(row.role, actor.role)) {
    throw forbidden(`This member is ${row.role === 'owner' ? 'an owner' : `an ${row.role}`} of the workspace: only someone of that role or higher may act on them.`, 'higher_role');
  }
  return row?.role;
}

const lastOwner = () => new AppError('last_owner', 'A workspace must keep at least one owner; make someone else owner first.');

/**
 * Reads the target's role with the workspace's owner rows locked, so two concurrent demotions of the
 * last two owners cannot both pass the "another owner remains" check (SQLite's write transaction
 * already serialises them; PostgreSQL needs the row locks).
 */
async function lockedTarget(q: Queryable, workspaceId: string, userId: string): Promise<{ role: Role; owners: number }> {
  const lock = q.dialect === 'postgres' ? ' FOR UPDATE' : '';
  const owners = await q.all<{ user_id: string }>(`SELECT user_id FROM memberships WHERE workspace_id = ? AND role = 'owner'${lock}`, [workspaceId]);
  const target = await q.one<{ role: Role }>(`SELECT role FROM memberships WHERE workspace_id = ? AND user_id = ?${lock}`, [workspaceId, userId]);
  if (!target) throw notFound('Member');
  return { role: target.role, owners: owners.length };
}

/** Admins manage viewers, members and admins; only an owner grants, changes or removes an owner. */
function mayManage(actor: Role, targetRole: Role, newRole?: Role): boolean {
  if (!atLeast(actor, 'admin')) return false;
  if (actor === 'owner') return true;
  return targetRole !== 'owner' && newRole !== 'owner';
}

/** Member keys act for one member in one workspace: they die with the membership, and a viewer
 * (who reads only) holds none. The caller drops them from the verified-credential cache. */
async function revokeMemberKeys(q: Queryable, workspaceId: string, userId: string, nowIso: string): Promise<void> {
  await q.run("UPDATE credentials SET revoked_at = ? WHERE kind = 'member' AND workspace_id = ? AND user_id = ? AND revoked_at IS NULL", [nowIso, workspaceId, userId]);
}

export async function changeRole(db: Db, workspaceId: string, actor: Role, userId: string, role: Role, nowIso: string): Promise<void> {
  await db.tx(async (q) => {
    const t = await lockedTarget(q, workspaceId, userId);
    if (!mayManage(actor, t.role, role)) throw forbidden('Only an owner may grant or change the owner role.');
    if (t.role === 'owner' && role !== 'owner' && t.owners <= 1) throw lastOwner();
    await q.run('UPDATE memberships SET role = ? WHERE workspace_id = ? AND user_id = ?', [role, workspaceId, userId]);
    if (role === 'viewer') await revokeMemberKeys(q, workspaceId, userId, nowIso);
  });
}

/** Removes a member; anyone may leave, admins and owners may remove others under the same rules. */
export async function removeMember(db: Db, workspaceId: string, actor: { userId: string; role: Role }, userId: string, nowIso: string): Promise<void> {
  await db.tx(async (q) => {
    const t = await lockedTarget(q, workspaceId, userId);
    if (actor.userId !== userId && !mayManage(actor.role, t.role)) throw forbidden('You may not remove this member.');
    if (t.role === 'owner' && t.owners <= 1) throw lastOwner();
    await q.run('DELETE FROM memberships WHERE workspace_id = ? AND user_id = ?', [workspaceId, userId]);
    await revokeMemberKeys(q, workspaceId, userId, nowIso);
  });
}
