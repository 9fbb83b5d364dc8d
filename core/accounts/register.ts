import { tokenHash, wellFormed } from '../auth/tokens.ts';
import { AppError, conflict } from '../kernel/errors.ts';
import { newId } from '../kernel/ids.ts';
import { invitationRedeemable, redeemInvitation } from '../invitations/repo.ts';
import { UniqueViolation } from '../store/types.ts';
import { isEmptyStore } from './bootstrap.ts';
import { tooManyAttempts } from './login.ts';
import { emailInUse, insertUser } from './repo.ts';
import { FailureThrottle } from './throttle.ts';
import { addMember, createWorkspace, workspacesOf } from './workspaces.ts';
import type { AccountView, AccountsDeps } from './types.ts';

export interface RegisterInput {
  email: string; // already normalised and validated
  password: string;
  name: string;
  invitationToken?: string | undefined;
  /** For the per-address throttle; internal callers pass none. */
  clientAddress?: string | undefined;
}

/** 20 refused sign-ups per client address per 15 minutes; successes do not count. */
export const signupThrottle = () => new FailureThrottle(20, 15 * 60_000);

/** One body for unknown, expired, revoked, used and mismatched tokens: nothing to probe. */
export const invalidInvitation = () =>
  new AppError('invalid_invitation', 'This invitation is not valid. Ask a workspace admin for a new one.', { uniformBody: true });

export const invitationRequired = () =>
  new AppError('invitation_required', 'Registration is by invitation only. Ask a workspace admin for an invitation.');
const emailTaken = () => conflict('email_taken', 'An account with this email already exists. Sign in instead.');

export const registrationMisconfigured = (mode: string) =>
  new AppError('registration_misconfigured', 'Registration is disabled: SERVICE_REGISTRATION_MODE has an unknown value. The operator must set it to invite_only or open.', {
    kind: 'operational',
    cause: `SERVICE_REGISTRATION_MODE=${mode}`,
  });

/**
 * One transaction: a failure leaves nothing behind and the invitation unspent.
 * Refusals come before the hash, so they cost none; they count per address.
 */
export async function register(deps: AccountsDeps & { signups?: FailureThrottle }, input: RegisterInput): Promise<AccountView> {
  const mode = deps.registrationMode;
  if (mode !== 'invite_only' && mode !== 'open') throw registrationMisconfigured(mode);
  const throttle = input.clientAddress === undefined ? undefined : deps.signups;
  const address = input.clientAddress ?? '';
  const now = deps.clock.now();
  if (throttle) {
    // Before any await, so parallel attempts cannot all pass.
    const wait = throttle.reserve(address, now);
    if (wait > 0) throw tooManyAttempts('sign-up', wait);
  }
  let refused = false;
  try {
    return await createAccount(deps, input, mode);
  } catch (err) {
    // Only refusals (403, 409) count; our own errors do not.
    refused = err instanceof AppError && (err.status === 403 || err.status === 409);
    throw err;
  } finally {
    throttle?.settle(address, deps.clock.now(), refused);
  }
}

/** Refusals before the hash; the transaction checks again. */
async function precheck(deps: AccountsDeps, input: RegisterInput, mode: 'invite_only' | 'open'): Promise<void> {
  const q = deps.db;
  const empty = await isEmptyStore(q);
  if (empty) return;
  const token = input.invitationToken;
  if (token !== undefined) {
    const nowIso = new Date(deps.clock.now()).toISOString();
    if (!(await invitationRedeemable(q, tokenHash(deps.tokenKey, token), input.email, nowIso))) throw invalidInvitation();
  } else if (mode === 'invite_only') {
    throw invitationRequired();
  }
  if (await emailInUse(q, input.email)) throw emailTaken();
}

async function createAccount(deps: AccountsDeps, input: RegisterInput, mode: 'invite_only' | 'open'): Promise<AccountView> {
  const token = input.invitationToken;
  // A malformed token is refused before the slow hash and before any lookup.
  if (token !== undefined && !wellFormed(token, 'invitation')) throw invalidInvitation();
  await precheck(deps, input, mode);
  const passwordHash = await deps.hasher.hash(input.password);

  for (let attempt = 0; ; attempt++) {
    try {
      return await deps.db.tx(async (q) => {
        const now = new Date(deps.clock.now()).toISOString();
        const userId = newId('usr');
        const empty = await isEmptyStore(q);
        let join: { workspaceId: string; role: 'viewer' | 'member' | 'admin' | 'owner' } | undefined;
        if (!empty && token !== undefined) {
          join = await redeemInvitation(q, tokenHash(deps.tokenKey, token), input.email, userId, now);
          if (!join) throw invalidInvitation();
        } else if (!empty && mode === 'invite_only') {
          throw invitationRequired();
        }
        if (await emailInUse(q, input.email)) throw emailTaken();
        await insertUser(q, { id: userId, email: input.email, name: input.name, passwordHash, createdAt: now });
        await createWorkspace(q, { id: userId, name: input.name }, { operator: empty, now });
        if (join) await addMember(q, join.workspaceId, userId, join.role, now);
        const workspaces = await workspacesOf(q, userId);
        return {
          user: { id: userId, email: input.email, name: input.name },
          workspaces: workspaces.map((w) => ({ id: w.id, name: w.name, role: w.role })),
        };
      });
    } catch (err) {
      // A lost bootstrap race on PostgreSQL: retry once on a non-empty store.
      if (err instanceof UniqueViolation && attempt === 0) continue;
      if (err instanceof UniqueViolation) throw emailTaken();
      throw err;
    }
  }
}
