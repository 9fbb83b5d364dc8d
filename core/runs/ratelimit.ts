import { createHmac } from 'node:crypto';
import type { Clock } from '../kernel/clock.ts';
import { AppError } from '../kernel/errors.ts';
import type { Db, Queryable } from '../store/types.ts';
import { dropHitsUpTo, hitWindow, insertHit, lockKey } from './repo/ratelimit.ts';

export interface RateDecision {
  headers: Record<string, string>;
}

const WINDOW_MS = 60_000;

/** Per user, sliding minute, counted in the store so it holds across replicas. Keys are
 * HMACs, so the table names nobody. */
export class RunStartLimiter {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #limit: number;
  readonly #key: Buffer;
  /** Cached: an HMAC costs tens of µs. */
  readonly #keys = new Map<string, string>();

  constructor(deps: { db: Db; clock: Clock }, limit: number, key: Buffer) {
    this.#db = deps.db;
    this.#clock = deps.clock;
    this.#limit = limit;
    this.#key = key;
  }

  keyOf(userId: string): string {
    let key = this.#keys.get(userId);
    if (key === undefined) {
      key = createHmac('sha256', this.#key).update(`runs:${userId}`).digest('base64url');
      // Bounded; recomputing only costs time.
      if (this.#keys.size >= 10_000) this.#keys.clear();
      this.#keys.set(userId, key);
    }
    return key;
  }

  async take(userId: string): Promise<RateDecision> {
    return this.#db.tx((q) => this.takeIn(q, userId));
  }

  /** Inside the caller's transaction; the 429 rolls it back. */
  async takeIn(q: Queryable, userId: string): Promise<RateDecision> {
    const key = this.keyOf(userId);
    const now = this.#clock.now();
    const edge = new Date(now - WINDOW_MS).toISOString();
    await lockKey(q, key);
    await dropHitsUpTo(q, key, edge);
    const agg = await hitWindow(q, key);
    const count = Number(agg?.n ?? 0);
    const ok = count < this.#limit;
    if (ok) await insertHit(q, key, new Date(now).toISOString());
    const used = count + (ok ? 1 : 0);
    // Until the oldest start leaves the window.
    const oldest = agg?.oldest ? Date.parse(agg.oldest) : now;
    const reset = Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000));
    const headers = {
      'X-RateLimit-Limit': String(this.#limit),
      'X-RateLimit-Remaining': String(Math.max(0, this.#limit - used)),
      'X-RateLimit-Reset': String(reset),
    };
    if (!ok) throw runStartsExceeded(this.#limit, reset, headers);
    return { headers };
  }
}

/** `headers`: X-RateLimit-*, when the store counted the start. */
export function runStartsExceeded(limit: number, retryAfterS: number, headers?: Record<string, string>): AppError {
  const retry = headers ? ` Retry in ${retryAfterS} s.` : '';
  return new AppError('rate_limited', `Too many run starts: at most ${limit} per minute.${retry}`, {
    headers: { ...headers, 'Retry-After': String(retryAfterS) },
  });
}
