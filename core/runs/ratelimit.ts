import { createHmac } from 'node:crypto';
import type { Clock } from '../kernel/clock.ts';
import { AppError } from '../kernel/errors.ts';
import type { Db, Queryable } from '../store/types.ts';
import { dropHitsUpTo, hitWindow, insertHit, lockKey } from './repo/ratelimit.ts';

export interface RateDecision {
  headers: Record<string, string>;
}

const WINDOW_MS = 60_000;

/**
 * Run starts per user over a sliding minute, counted in the store so the allowance holds across
 * replicas and under concurrent starts (check-and-insert in one write transaction; PostgreSQL takes
 * a per-key advisory lock). The key is an HMAC of the user id under the rate-limit secret, so the
 * table names nobody.
 */
export class RunStartLimiter {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #limit: number;
  readonly #key: Buffer;
  /** userId → key: an HMAC costs tens of µs and the secret never changes while the process runs. */
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
      // Bounded: past the cap start over (recomputing is only a cost, never a different answer).
      if (this.#keys.size >= 10_000) this.#keys.clear();
      this.#keys.set(userId, key);
    }
    return key;
  }

  async take(userId: string): Promise<RateDecision> {
    return this.#db.tx((q) => this.takeIn(q, userId));
  }

  /** The same, inside the caller's write transaction (a queued start counts its hit with its run
   * and job, so one lock wait covers all three). Throws the 429 (rolling the transaction back). */
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
    // Seconds until the oldest counted start leaves the window (a slot frees).
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

/** The run-start 429; `headers` are the X-RateLimit-* ones when the store counted the start. */
export function runStartsExceeded(limit: number, retryAfterS: number, headers?: Record<string, string>): AppError {
  const retry = headers ? ` Retry in ${retryAfterS} s.` : '';
  return new AppError('rate_limited', `Too many run starts: at most ${limit} per minute.${retry}`, {
    headers: { ...headers, 'Retry-After': String(retryAfterS) },
  });
}
