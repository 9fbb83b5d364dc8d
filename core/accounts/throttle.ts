/**
 * Counts failures per key in a sliding window and answers how long a key must wait. In memory:
 * each replica throttles on its own, which bounds guessing to (replicas × limit) per window —
 * acceptable against online guessing at scrypt cost, and free of a write per attempt.
 *
 * An attempt is reserved before its outcome is known and settled after: attempts still in flight
 * count against the limit, so N parallel guesses cannot all pass a check that only sees finished
 * failures (issue 12: 41 parallel sign-ins were all evaluated).
 */
export class FailureThrottle {
  readonly #hits = new Map<string, number[]>();
  readonly #pending = new Map<string, number>();
  readonly #limit: number;
  readonly #windowMs: number;

  constructor(limit: number, windowMs: number) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  /** Milliseconds until the key may try again; 0 when it may try now. */
  retryAfter(key: string, now: number): number {
    const hits = this.#prune(key, now);
    if (hits.length >= this.#limit) return hits[hits.length - this.#limit]! + this.#windowMs - now;
    // Only attempts in flight fill the allowance: their outcome comes within a second or so.
    if (hits.length + (this.#pending.get(key) ?? 0) >= this.#limit) return 1000;
    return 0;
  }

  /**
   * Reserves one attempt for `key` now, in the same turn as the check (call it before any await):
   * 0 when reserved, else the milliseconds to wait (nothing reserved). Settle it with `settle`.
   */
  reserve(key: string, now: number): number {
    const wait = this.retryAfter(key, now);
    if (wait === 0) this.#pending.set(key, (this.#pending.get(key) ?? 0) + 1);
    return wait;
  }

  /** Ends a reservation: a failure is recorded at `now`; anything else (success, error) is not. */
  settle(key: string, now: number, failed: boolean): void {
    const n = (this.#pending.get(key) ?? 1) - 1;
    if (n > 0) this.#pending.set(key, n);
    else this.#pending.delete(key);
    if (failed) this.fail(key, now);
  }

  fail(key: string, now: number): void {
    const hits = this.#prune(key, now);
    hits.push(now);
    this.#hits.set(key, hits);
    if (this.#hits.size > 100_000) this.#sweep(now);
  }

  reset(key: string): void {
    this.#hits.delete(key);
  }

  #prune(key: string, now: number): number[] {
    const hits = this.#hits.get(key);
    if (!hits) return [];
    const fresh = hits.filter((t) => t > now - this.#windowMs);
    if (fresh.length === 0) this.#hits.delete(key);
    else this.#hits.set(key, fresh);
    return fresh;
  }

  #sweep(now: number): void {
    for (const key of this.#hits.keys()) this.#prune(key, now);
  }
}
