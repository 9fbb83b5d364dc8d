import { randomBytes } from 'node:crypto';
import type { PasswordHasher } from '../auth/hasher.ts';
import { AppError } from '../kernel/errors.ts';
import { normalizeEmail } from './email.ts';
import { userForLogin } from './repo.ts';
import { FailureThrottle } from './throttle.ts';
import { workspacesOf } from './workspaces.ts';
import type { AccountView, AccountsDeps } from './types.ts';

/** Byte-identical for an unknown address and a wrong password. */
export const invalidCredentials = () => new AppError('invalid_credentials', 'Email or password is incorrect.', { uniformBody: true });

export interface LoginThrottles {
  account: FailureThrottle;
  address: FailureThrottle;
}

/** Per 15 minutes: 10 failures per account, 30 per client address. */
export const defaultThrottles = (): LoginThrottles => ({
  account: new FailureThrottle(10, 15 * 60_000),
  address: new FailureThrottle(30, 15 * 60_000),
});

export const tooManyAttempts = (what: string, wait: number) => {
  const seconds = Math.ceil(wait / 1000);
  return new AppError('too_many_attempts', `Too many ${what} attempts. Try again in ${seconds} s.`, { headers: { 'Retry-After': String(seconds) } });
};

export async function login(
  deps: AccountsDeps & { throttles: LoginThrottles },
  input: { email: string; password: string; clientAddress: string },
): Promise<AccountView> {
  const email = normalizeEmail(input.email);
  const { account, address } = deps.throttles;
  const now = deps.clock.now();
  const wait = Math.max(account.retryAfter(email, now), address.retryAfter(input.clientAddress, now));
  if (wait > 0) throw tooManyAttempts('sign-in', wait);
  // Before any await, so parallel guesses cannot all pass the check.
  account.reserve(email, now);
  address.reserve(input.clientAddress, now);
  let row: { id: string; email: string; name: string; password_hash: string } | undefined;
  let outcome: 'ok' | 'wrong' | 'error' = 'error';
  try {
    row = await userForLogin(deps.db, email);
    // Unknown users pay for a hash too: timing reveals no addresses.
    const ok = await deps.hasher.verify(input.password, row?.password_hash ?? (await dummyFor(deps.hasher)));
    outcome = row && ok ? 'ok' : 'wrong';
  } finally {
    // Only a wrong password counts: an error guessed nothing.
    const end = deps.clock.now();
    account.settle(email, end, outcome === 'wrong');
    address.settle(input.clientAddress, end, outcome === 'wrong');
  }
  if (outcome !== 'ok' || !row) throw invalidCredentials();
  account.reset(email);
  const workspaces = await workspacesOf(deps.db, row.id);
  return { user: { id: row.id, email: row.email, name: row.name }, workspaces: workspaces.map((w) => ({ id: w.id, name: w.name, role: w.role })) };
}

/** One random hash per hasher, so unknown users' sign-ins take as long. */
const dummies = new WeakMap<PasswordHasher, Promise<string>>();
function dummyFor(hasher: PasswordHasher): Promise<string> {
  let d = dummies.get(hasher);
  if (!d) {
    d = hasher.hash(randomBytes(16).toString('hex'));
    dummies.set(hasher, d);
    d.catch(() => dummies.delete(hasher)); // refused (busy): try again next time
  }
  return d;
}
