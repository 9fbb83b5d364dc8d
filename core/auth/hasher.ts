import PQueue from 'p-queue';
import { AppError } from '../errors.ts';
import { hashPassword, OWASP_SCRYPT, verifyPassword, type ScryptCost } from './password.ts';

/**
 * Every password hash of the process goes through one of these: sign-up hashes, sign-in
 * verifications (and the dummy hash for unknown users). One scrypt hash at the OWASP cost holds
 * 128 MiB for about half a second, so a burst of 40 sign-ups took a sign-in from 0.3 s to 6 s and
 * the process from 86 to 599 MiB (issue 12): hashes run at most `concurrency` at a time, sign-ins
 * before sign-ups, and a burst beyond `maxWaiting` queued hashes is refused with 503 instead of
 * queued without end.
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
}

export interface HasherOptions {
  cost?: ScryptCost;
  /** Hashes running at once (each holds 128·N·r bytes: 128 MiB at the OWASP cost). */
  concurrency?: number;
  /** Hashes waiting for a slot before new ones are refused (503, Retry-After). */
  maxWaiting?: number;
  /** The hashing itself (tests count or slow it); default scrypt (password.ts). */
  impl?: { hash(password: string, cost: ScryptCost): Promise<string>; verify(password: string, stored: string): Promise<boolean> };
}

export const HASH_CONCURRENCY = 2;
export const HASH_MAX_WAITING = 64;
// Sign-ins go first: a flood of sign-ups must not make the members who already have an account wait.
const VERIFY_PRIORITY = 1;
const HASH_PRIORITY = 0;

export const hashingBusy = () =>
  new AppError('auth_busy', 'Too many sign-ins and sign-ups at once; retry in a few seconds.', { kind: 'operational', headers: { 'Retry-After': '2' } });

export function boundedHasher(opts: HasherOptions = {}): PasswordHasher {
  const cost = opts.cost ?? OWASP_SCRYPT;
  const impl = opts.impl ?? { hash: hashPassword, verify: verifyPassword };
  const maxWaiting = opts.maxWaiting ?? HASH_MAX_WAITING;
  const queue = new PQueue({ concurrency: opts.concurrency ?? HASH_CONCURRENCY });
  const run = <T>(fn: () => Promise<T>, priority: number): Promise<Awaited<T>> => {
    if (queue.size >= maxWaiting) return Promise.reject(hashingBusy());
    return queue.add(fn, { priority });
  };
  return {
    hash: (password) => run(() => impl.hash(password, cost), HASH_PRIORITY),
    verify: (password, stored) => run(() => impl.verify(password, stored), VERIFY_PRIORITY),
  };
}
