import type { Role } from '../accounts/roles.ts';
import type { Queryable } from '../store/types.ts';

/**
 * Consumes an invitation in one conditional UPDATE: the token must be unused, unrevoked, unexpired
 * and issued to this address. Two concurrent sign-ups with one token: exactly one UPDATE matches.
 * Returns undefined for every failure alike, so the caller cannot leak which check failed.
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

/** Whether redeemInvitation would admit this token and address now, without spending it: lets a
 * sign-up be refused before its password is hashed (the redeem in the transaction still decides). */
export async function invitationRedeemable(q: Queryable, hash: string, email: string, nowIso: string): Promise<boolean> {
  const row = await q.one(
    'SELECT 1 AS x FROM invitations WHERE token_hash = ? AND email = ? AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ?',
    [hash, email, nowIso],
  );
  return row !== undefined;
}
