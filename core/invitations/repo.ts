import type { Role } from '../accounts/roles.ts';
import type { Queryable } from '../store/types.ts';
import { INVITATION_COLUMNS, type DeliveryStatus, type InvitationRow } from './types.ts';

/** The only SQL on the invitations table. */

export async function invitationById(q: Queryable, workspaceId: string, id: string): Promise<InvitationRow | undefined> {
  return q.one<InvitationRow>(`SELECT ${INVITATION_COLUMNS} FROM invitations WHERE id = ? AND workspace_id = ?`, [id, workspaceId]);
}

/** The workspace of an invitation known by id alone (`svc invite resend|revoke`). */
export async function workspaceIdOf(q: Queryable, id: string): Promise<string | undefined> {
  return (await q.one<{ workspace_id: string }>('SELECT workspace_id FROM invitations WHERE id = ?', [id]))?.workspace_id;
}

export async function invitationsOf(q: Queryable, workspaceId: string): Promise<InvitationRow[]> {
  return q.all<InvitationRow>(`SELECT ${INVITATION_COLUMNS} FROM invitations WHERE workspace_id = ? ORDER BY created_at DESC, id`, [workspaceId]);
}

export async function insertInvitation(
  q: Queryable,
  i: { id: string; workspaceId: string; email: string; role: Role; tokenHash: string; tokenPreview: string; createdBy: string | null; createdAt: string; expiresAt: string },
): Promise<void> {
  await q.run(
    `INSERT INTO invitations (id, workspace_id, email, role, token_hash, token_preview, created_by, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [i.id, i.workspaceId, i.email, i.role, i.tokenHash, i.tokenPreview, i.createdBy, i.createdAt, i.expiresAt],
  );
}

/** Revokes the address's pending invitations in the workspace; their ids. */
export async function revokePendingFor(q: Queryable, workspaceId: string, email: string, nowIso: string): Promise<string[]> {
  const rows = await q.all<{ id: string }>(
    'UPDATE invitations SET revoked_at = ? WHERE workspace_id = ? AND email = ? AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ? RETURNING id',
    [nowIso, workspaceId, email, nowIso],
  );
  return rows.map((r) => r.id);
}

/** New token and period; false when the invitation was used or revoked. */
export async function reissueInvitation(q: Queryable, workspaceId: string, id: string, t: { tokenHash: string; tokenPreview: string; expiresAt: string }): Promise<boolean> {
  const r = await q.run(
    `UPDATE invitations SET token_hash = ?, token_preview = ?, expires_at = ?, delivery_status = 'not_sent', delivery_detail = NULL
      WHERE id = ? AND workspace_id = ? AND used_at IS NULL AND revoked_at IS NULL`,
    [t.tokenHash, t.tokenPreview, t.expiresAt, id, workspaceId],
  );
  return r.changes === 1;
}

/** False when it was already used or revoked. */
export async function revokeOpenInvitation(q: Queryable, workspaceId: string, id: string, nowIso: string): Promise<boolean> {
  const r = await q.run('UPDATE invitations SET revoked_at = ? WHERE id = ? AND workspace_id = ? AND used_at IS NULL AND revoked_at IS NULL', [nowIso, id, workspaceId]);
  return r.changes === 1;
}

/** Rows changed: 0 for an unknown id. */
export async function setDeliveryStatus(q: Queryable, id: string, status: DeliveryStatus, detail: string | null, nowIso: string): Promise<number> {
  const r = await q.run('UPDATE invitations SET delivery_status = ?, delivery_detail = ?, delivery_updated_at = ? WHERE id = ?', [status, detail, nowIso, id]);
  return r.changes;
}

/**
 * One conditional UPDATE: of two concurrent sign-ups exactly one wins. Every failure is
 * undefined alike, so the caller cannot leak which check failed.
 */
export async function redeemInvitation(
  q: Queryable,
  hash: string,
  email: string,
  userId: string,
  nowIso: string,
): Promise<{ workspaceId: string; role: Role } | undefined> {
  const row = await q.one<{ workspace_id: string; role: Role }>(
    `UPDATE invitations SET used_at = ?, used_by = ?
      WHERE token_hash = ? AND email = ? AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ?
      RETURNING workspace_id, role`,
    [nowIso, userId, hash, email, nowIso],
  );
  return row && { workspaceId: row.workspace_id, role: row.role };
}

/** redeemInvitation's check without spending it: refuse before the hash; the redeem still decides. */
export async function invitationRedeemable(q: Queryable, hash: string, email: string, nowIso: string): Promise<boolean> {
  const row = await q.one(
    'SELECT 1 AS x FROM invitations WHERE token_hash = ? AND email = ? AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ?',
    [hash, email, nowIso],
  );
  return row !== undefined;
}

/** Deletes unused invitations that expired or were revoked before `beforeIso`. */
export async function pruneInvitations(q: Queryable, beforeIso: string): Promise<number> {
  const r = await q.run('DELETE FROM invitations WHERE used_at IS NULL AND (expires_at < ? OR revoked_at < ?)', [beforeIso, beforeIso]);
  return r.changes;
}
