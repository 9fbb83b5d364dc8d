import { dummyHash, verifyPassword } from '../auth/password.ts';
import { AppError } from '../errors.ts';
import { normalizeEmail } from './email.ts';
import { FailureThrottle } from './throttle.ts';
import { workspacesOf } from './workspaces.ts';
import type { AccountView, AccountsDeps } from './types.ts';

/** Same answer, byte for byte (no request id in the body), for an unknown address and a wrong password. */
export const invalidCredentials = () => new AppError(401, 'invalid_credentials', 'Email or password is incorrect.', { uniformBody: true });

export interface LoginThrottles {
  account: FailureThrottle;
  address: FailureThrottle;
}

/** 10 failures per account per 15 minutes; 30 per client address per 15 minutes. */
export const defaultThrottles = (): LoginThrottles => ({
  account: new FailureThrottle(10, 15 * 60_000),
  address: new FailureThrottle(30, 15 * 60_000),
});

export async function login(
  deps: AccountsDeps & { throttles: LoginThrottles },
  input: { email: string; password: string; clientAddress: string },
): Promise<AccountView> {
  const email = normalizeEmail(input.email);
  const now = deps.clock.now();
  const wait = Math.max(deps.throttles.account.retryAfter(email, now), deps.throttles.address.retryAfter(input.clientAddress, now));
  if (wait > 0) {
    const seconds = Math.ceil(wait / 1000);
    throw new AppError(429, 'too_many_attempts', `Too many sign-in attempts. Try again in ${seconds} s.`, { headers: { 'Retry-After': String(seconds) } });
  }
  const row = await deps.db.one<{ id: string; email: string; name: string; password_hash: string }>(
    'SELECT id, email, name, password_hash FROM users WHERE email = ?',
    [email],
  );
  // Unknown users still pay for one hash, so timing does not reveal which addresses exist.
  const ok = await verifyPassword(input.password, row?.password_hash ?? (await dummyFor(deps)));
  if (!row || !ok) {
    deps.throttles.account.fail(email, now);
    deps.throttles.address.fail(input.clientAddress, now);
    throw invalidCredentials();
  }
  deps.throttles.account.reset(email);
  const workspaces = await workspacesOf(deps.db, row.id);
  return { user: { id: row.id, email: row.email, name: row.name }, workspaces: workspaces.map((w) => ({ id: w.id, name: w.name, role: w.role })) };
}

const dummies = new Map<number, Promise<string>>();
function dummyFor(deps: AccountsDeps): Promise<string> {
  const key = deps.scrypt?.N ?? 0;
  let d = dummies.get(key);
  if (!d) dummies.set(key, (d = dummyHash(deps.scrypt)));
  return d;
}
