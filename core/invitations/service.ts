import { isEmail, normalizeEmail } from '../accounts/email.ts';
import { atLeast, isRole, type Role } from '../accounts/roles.ts';
import { issueToken, tokenHash, tokenPreview } from '../auth/tokens.ts';
import type { Clock } from '../clock.ts';
import { AppError, badRequest, conflict, forbidden, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Db } from '../store/types.ts';
import { INVITATION_COLUMNS, INVITATION_TTL_MS, toInvitation, type Invitation, type InvitationRow, type IssuedInvitation } from './types.ts';

export interface InvitationDeps {
  db: Db;
  clock: Clock;
  tokenKey: Buffer;
  appOrigin: string;
}

/** Who is acting: the API passes the caller's role; `svc invite` acts with the host operator's rights. */
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
  const row = await deps.db.one<InvitationRow>(`SELECT ${INVITATION_COLUMNS} FROM invitations WHERE id = ? AND workspace_id = ?`, [id, workspaceId]);
  if (!row) throw notFound('Invitation');
  return row;
}

/**
 * Creates an invitation and returns its token once. An earlier pending invitation for the same
 * address in the same workspace is revoked, so only the newest link works.
 */
export async function createInvitation(deps: InvitationDeps, workspaceId: string, actor: Actor, input: { email: string; role: string }): Promise<IssuedInvitation> {
  if (!isRole(input.role)) throw badRequest('invalid_role', 'role must be one of viewer, member, admin, owner.', 'role');
  const email = normalizeEmail(input.email);
  if (!isEmail(email)) throw badRequest('invalid_email', 'email is not a valid address.', 'email');
  authorise(actor, input.role);
  const token = issueToken('invitation');
  const now = deps.clock.now();
  const id = newId('inv');
  const replaced = await deps.db.tx(async (q) => {
    const member = await q.one('SELECT 1 AS x FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = ? AND u.email = ?', [workspaceId, email]);
    if (member) throw conflict('already_member', `${email} is already a member of this workspace.`);
    const revoked = await q.all<{ id: string }>(
      'UPDATE invitations SET revoked_at = ? WHERE workspace_id = ? AND email = ? AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ? RETURNING id',
      [iso(now), workspaceId, email, iso(now)],
    );
    await q.run(
      `INSERT INTO invitations (id, workspace_id, email, role, token_hash, token_preview, created_by, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [id, workspaceId, email, input.role, tokenHash(deps.tokenKey, token), tokenPreview(token), actor.userId, iso(now), iso(now + INVITATION_TTL_MS)],
    );
    return revoked.map((r) => r.id);
  });
  const inv = toInvitation(await getRow(deps, workspaceId, id), iso(now));
  return { ...inv, token, signUpUrl: signUpUrl(deps.appOrigin, token), replacedInvitationIds: replaced };
}

export async function listInvitations(deps: InvitationDeps, workspaceId: string): Promise<Invitation[]> {
  const rows = await deps.db.all<InvitationRow>(`SELECT ${INVITATION_COLUMNS} FROM invitations WHERE workspace_id = ? ORDER BY created_at DESC, id`, [workspaceId]);
  const now = iso(deps.clock.now());
  return rows.map((r) => toInvitation(r, now));
}

/**
 * Issues a fresh token and a new seven-day period. Only the hash of a token is kept, so a lost
 * token cannot be shown again: resending replaces it (the old link stops working).
 */
export async function resendInvitation(deps: InvitationDeps, workspaceId: string, actor: Actor, id: string): Promise<IssuedInvitation> {
  const row = await getRow(deps, workspaceId, id);
  authorise(actor, row.role);
  const token = issueToken('invitation');
  const now = deps.clock.now();
  const r = await deps.db.run(
    `UPDATE invitations SET token_hash = ?, token_preview = ?, expires_at = ?, delivery_status = 'not_sent', delivery_detail = NULL
      WHERE id = ? AND workspace_id = ? AND used_at IS NULL AND revoked_at IS NULL`,
    [tokenHash(deps.tokenKey, token), tokenPreview(token), iso(now + INVITATION_TTL_MS), id, workspaceId],
  );
  if (r.changes !== 1) throw new AppError('invitation_closed', 'This invitation was already used or revoked; create a new one.');
  const inv = toInvitation(await getRow(deps, workspaceId, id), iso(now));
  return { ...inv, token, signUpUrl: signUpUrl(deps.appOrigin, token) };
}

export async function revokeInvitation(deps: InvitationDeps, workspaceId: string, actor: Actor, id: string): Promise<Invitation> {
  const row = await getRow(deps, workspaceId, id);
  authorise(actor, row.role);
  const now = iso(deps.clock.now());
  const r = await deps.db.run('UPDATE invitations SET revoked_at = ? WHERE id = ? AND workspace_id = ? AND used_at IS NULL AND revoked_at IS NULL', [now, id, workspaceId]);
  if (r.changes !== 1) throw new AppError('invitation_closed', 'This invitation was already used or revoked.');
  return toInvitation(await getRow(deps, workspaceId, id), now);
}
