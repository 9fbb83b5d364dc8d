import { hashPassword } from '../auth/password.ts';
import { tokenHash, wellFormed } from '../auth/tokens.ts';
import { AppError, conflict } from '../errors.ts';
import { newId } from '../ids.ts';
import { redeemInvitation } from '../invitations/redeem.ts';
import { UniqueViolation } from '../store/types.ts';
import { addMember, createWorkspace, workspacesOf } from './workspaces.ts';
import type { AccountView, AccountsDeps } from './types.ts';

export interface RegisterInput {
  email: string; // already normalised and validated
  password: string;
  name: string;
  invitationToken?: string | undefined;
}

/** One body for unknown, expired, revoked, used and mismatched tokens: nothing to probe. */
export const invalidInvitation = () =>
  new AppError(403, 'invalid_invitation', 'This invitation is not valid. Ask a workspace admin for a new one.', { uniformBody: true });

export const registrationMisconfigured = (mode: string) =>
  new AppError(500, 'registration_misconfigured', 'Registration is disabled: SERVICE_REGISTRATION_MODE has an unknown value. The operator must set it to invite_only or open.', {
    kind: 'operational',
    cause: `SERVICE_REGISTRATION_MODE=${mode}`,
  });

/**
 * Creates an account. The first account on an empty store owns the operator workspace; every
 * account gets and owns a workspace of its own; an invited account also joins the inviting
 * workspace with the invited role. All of it happens in one transaction, so a failure (address
 * taken, token already used) leaves nothing behind and the invitation unspent.
 */
export async function register(deps: AccountsDeps, input: RegisterInput): Promise<AccountView> {
  const mode = deps.registrationMode;
  if (mode !== 'invite_only' && mode !== 'open') throw registrationMisconfigured(mode);
  const token = input.invitationToken;
  // A malformed token is refused before the slow hash and before any lookup.
  if (token !== undefined && !wellFormed(token, 'invitation')) throw invalidInvitation();
  const passwordHash = await hashPassword(input.password, deps.scrypt);

  for (let attempt = 0; ; attempt++) {
    try {
      return await deps.db.tx(async (q) => {
        const now = new Date(deps.clock.now()).toISOString();
        const userId = newId('usr');
        const empty = !(await q.one('SELECT 1 AS x FROM users LIMIT 1'));
        let join: { workspaceId: string; role: 'viewer' | 'member' | 'admin' | 'owner' } | undefined;
        if (!empty && token !== undefined) {
          join = await redeemInvitation(q, tokenHash(deps.tokenKey, token), input.email, userId, now);
          if (!join) throw invalidInvitation();
        } else if (!empty && mode === 'invite_only') {
          throw new AppError(403, 'invitation_required', 'Registration is by invitation only. Ask a workspace admin for an invitation.');
        }
        if (await q.one('SELECT 1 AS x FROM users WHERE email = ?', [input.email])) {
          throw conflict('email_taken', 'An account with this email already exists. Sign in instead.');
        }
        await q.run('INSERT INTO users (id, email, name, password_hash, created_at) VALUES (?, ?, ?, ?, ?)', [userId, input.email, input.name, passwordHash, now]);
        await createWorkspace(q, { id: userId, name: input.name }, { operator: empty, now });
        if (join) await addMember(q, join.workspaceId, userId, join.role, now);
        const workspaces = await workspacesOf(q, userId);
        return {
          user: { id: userId, email: input.email, name: input.name },
          workspaces: workspaces.map((w) => ({ id: w.id, name: w.name, role: w.role })),
        };
      });
    } catch (err) {
      // Two bootstrap registrations racing on PostgreSQL: the loser hits the one-operator index
      // (or the email index) and tries once more, now seeing a non-empty store.
      if (err instanceof UniqueViolation && attempt === 0) continue;
      if (err instanceof UniqueViolation) throw conflict('email_taken', 'An account with this email already exists. Sign in instead.');
      throw err;
    }
  }
}
