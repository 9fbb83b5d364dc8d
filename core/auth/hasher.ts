import PQueue from 'p-queue';
import { AppError } from '../kernel/errors.ts';
import { hashPassword, OWASP_SCRYPT, verifyPassword, type ScryptCost } from './password.ts';

/** Each hash holds 128 MiB for ~0.5 s, so they are bounded (docs/public-endpoints.md). */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
}

export interface HasherOptions {
  cost?: ScryptCost;
  /** Each holds 128·N·r bytes: 128 MiB at the OWASP cost. */
  concurrency?: number;
  /** Hashes waiting for a slot before new ones are refused (503, Retry-After). */
  maxWaiting?: number;
  /** Tests count or slow it; default scrypt. */
  impl?: { hash(password: string, cost: ScryptCost): Promise<string>; verify(password: string, stored: string): Promise<boolean> };
}

export const HASH_CONCURRENCY = 2;
export const HASH_MAX_WAITING = 64;
// A flood of sign-ups must not make existing members wait.
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
