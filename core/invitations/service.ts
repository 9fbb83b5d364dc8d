import { isEmail, normalizeEmail } from '../accounts/email.ts';
import { isMemberByEmail, workspaceById } from '../accounts/repo.ts';
import { atLeast, isRole, type Role } from '../accounts/roles.ts';
import { issueToken, tokenHash, tokenPreview } from '../auth/tokens.ts';
import type { Clock } from '../kernel/clock.ts';
import { AppError, badRequest, conflict, forbidden, notFound } from '../kernel/errors.ts';
import { newId } from '../kernel/ids.ts';
import type { Db } from '../store/types.ts';
import { insertInvitation, invitationById, invitationsOf, reissueInvitation, revokeOpenInvitation, revokePendingFor, workspaceIdOf } from './repo.ts';
import { INVITATION_TTL_MS, toInvitation, type Invitation, type InvitationRow, type IssuedInvitation } from './types.ts';

export interface InvitationDeps {
  db: Db;
  clock: Clock;
  tokenKey: Buffer;
  appOrigin: string;
}

/** The caller's role, or the host operator's rights for `svc invite`. */
export interface Actor {
  userId: string | null;
  role: Role;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function signUpUrl(appOrigin: string, token: string): string {
  const u = new URL('/sign-up', appOrigin);
  u.searchParams.set('invite', token);
  return u.toString();
}

function authorise(actor: Actor, role: Role): void {
  if (!atLeast(actor.role, 'admin')) throw forbidden('Only workspace admins and owners manage invitations.');
  if (role === 'owner' && actor.role !== 'owner') throw forbidden('Only an owner may invite an owner.', 'owner_invite_forbidden');
}

async function getRow(deps: InvitationDeps, workspaceId: string, id: string): Promise<InvitationRow> {
  const row = await invitationById(deps.db, workspaceId, id);
  if (!row) throw notFound('Invitation');
  return row;
}

/** Returns the token once; revokes earlier pending ones, so only the newest link works. */
export async function createInvitation(deps: InvitationDeps, workspaceId: string, actor: Actor, input: { email: string; role: string }): Promise<IssuedInvitation> {
  if (!isRole(input.role)) throw badRequest('invalid_role', 'role must be one of viewer, member, admin, owner.', 'role');
  const email = normalizeEmail(input.email);
  if (!isEmail(email)) throw badRequest('invalid_email', 'email is not a valid address.', 'email');
  authorise(actor, input.role);
  const token = issueToken('invitation');
  const now = deps.clock.now();
  const id = newId('inv');
  const replaced = await deps.db.tx(async (q) => {
    if (await isMemberByEmail(q, workspaceId, email)) throw conflict('already_member', `${email} is already a member of this workspace.`);
    const revoked = await revokePendingFor(q, workspaceId, email, iso(now));
    await insertInvitation(q, {
      id,
      workspaceId,
      email,
      role: input.role as Role,
      tokenHash: tokenHash(deps.tokenKey, token),
      tokenPreview: tokenPreview(token),
      createdBy: actor.userId,
      createdAt: iso(now),
      expiresAt: iso(now + INVITATION_TTL_MS),
    });
    return revoked;
  });
  const inv = toInvitation(await getRow(deps, workspaceId, id), iso(now));
  return { ...inv, token, signUpUrl: signUpUrl(deps.appOrigin, token), replacedInvitationIds: replaced };
}

export async function listInvitations(deps: InvitationDeps, workspaceId: string): Promise<Invitation[]> {
  const rows = await invitationsOf(deps.db, workspaceId);
  const now = iso(deps.clock.now());
  return rows.map((r) => toInvitation(r, now));
}

/** A new token and seven-day period: only hashes are kept, so the old link stops working. */
export async function resendInvitation(deps: InvitationDeps, workspaceId: string, actor: Actor, id: string): Promise<IssuedInvitation> {
  const row = await getRow(deps, workspaceId, id);
  authorise(actor, row.role);
  const token = issueToken('invitation');
  const now = deps.clock.now();
  const reissued = await reissueInvitation(deps.db, workspaceId, id, { tokenHash: tokenHash(deps.tokenKey, token), tokenPreview: tokenPreview(token), expiresAt: iso(now + INVITATION_TTL_MS) });
  if (!reissued) throw new AppError('invitation_closed', 'This invitation was already used or revoked; create a new one.');
  const inv = toInvitation(await getRow(deps, workspaceId, id), iso(now));
  return { ...inv, token, signUpUrl: signUpUrl(deps.appOrigin, token) };
}

export async function revokeInvitation(deps: InvitationDeps, workspaceId: string, actor: Actor, id: string): Promise<Invitation> {
  const row = await getRow(deps, workspaceId, id);
  authorise(actor, row.role);
  const now = iso(deps.clock.now());
  if (!(await revokeOpenInvitation(deps.db, workspaceId, id, now))) throw new AppError('invitation_closed', 'This invitation was already used or revoked.');
  return toInvitation(await getRow(deps, workspaceId, id), now);
}

/** Found by the invitation's id alone. */
export async function invitationWorkspace(db: Db, id: string): Promise<{ id: string; name: string } | undefined> {
  const workspaceId = await workspaceIdOf(db, id);
  return workspaceId === undefined ? undefined : workspaceById(db, workspaceId);
}
