import { revokeMemberKeys } from '../credentials/repo.ts';
import { AppError, forbidden, notFound } from '../kernel/errors.ts';
import type { Db, Queryable } from '../store/types.ts';
import { deleteMembership, lockMemberRole, lockOwners, memberRole, memberRows, setMemberRole } from './repo.ts';
import { atLeast, outranks, type Role } from './roles.ts';

export interface Member {
  userId: string;
  email: string;
  name: string;
  role: Role;
  joinedAt: string;
}

export async function listMembers(q: Queryable, workspaceId: string): Promise<Member[]> {
  const rows = await memberRows(q, workspaceId);
  return rows.map((r) => ({ userId: r.user_id, email: r.email, name: r.name, role: r.role, joinedAt: r.created_at }));
}

/** 403 when the target outranks the actor (self and non-members pass); the target's role. */
export async function assertMayActOn(q: Queryable, workspaceId: string, actor: { userId: string; role: Role }, targetUserId: string): Promise<Role | undefined> {
  const row = await memberRole(q, workspaceId, targetUserId);
  if (row && targetUserId !== actor.userId && outranks(row.role, actor.role)) {
    throw forbidden(`This member is ${row.role === 'owner' ? 'an owner' : `an ${row.role}`} of the workspace: only someone of that role or higher may act on them.`, 'higher_role');
  }
  return row?.role;
}

const lastOwner = () => new AppError('last_owner', 'A workspace must keep at least one owner; make someone else owner first.');

/** Owner rows locked: two concurrent demotions cannot both leave "another owner". */
async function lockedTarget(q: Queryable, workspaceId: string, userId: string): Promise<{ role: Role; owners: number }> {
  const owners = await lockOwners(q, workspaceId);
  const target = await lockMemberRole(q, workspaceId, userId);
  if (!target) throw notFound('Member');
  return { role: target.role, owners: owners.length };
}

/** Admins manage viewers, members and admins; only an owner grants, changes or removes an owner. */
function mayManage(actor: Role, targetRole: Role, newRole?: Role): boolean {
  if (!atLeast(actor, 'admin')) return false;
  if (actor === 'owner') return true;
  return targetRole !== 'owner' && newRole !== 'owner';
}

export async function changeRole(db: Db, workspaceId: string, actor: Role, userId: string, role: Role, nowIso: string): Promise<void> {
  await db.tx(async (q) => {
    const t = await lockedTarget(q, workspaceId, userId);
    if (!mayManage(actor, t.role, role)) throw forbidden('Only an owner may grant or change the owner role.');
    if (t.role === 'owner' && role !== 'owner' && t.owners <= 1) throw lastOwner();
    await setMemberRole(q, workspaceId, userId, role);
    // Viewers hold no member keys; the caller drops them from the cache.
    if (role === 'viewer') await revokeMemberKeys(q, workspaceId, userId, nowIso);
  });
}

/** Anyone may leave; removing others follows mayManage. */
export async function removeMember(db: Db, workspaceId: string, actor: { userId: string; role: Role }, userId: string, nowIso: string): Promise<void> {
  await db.tx(async (q) => {
    const t = await lockedTarget(q, workspaceId, userId);
    if (actor.userId !== userId && !mayManage(actor.role, t.role)) throw forbidden('You may not remove this member.');
    if (t.role === 'owner' && t.owners <= 1) throw lastOwner();
    await deleteMembership(q, workspaceId, userId);
    await revokeMemberKeys(q, workspaceId, userId, nowIso);
  });
}
