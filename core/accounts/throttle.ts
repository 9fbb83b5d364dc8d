/**
 * Sliding-window failure counts, per replica in memory (docs/public-endpoints.md).
 * In-flight attempts count too, so parallel guesses cannot all pass.
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
    // Full only with in-flight attempts, which settle within a second or so.
    if (hits.length + (this.#pending.get(key) ?? 0) >= this.#limit) return 1000;
    return 0;
  }

  /** Call before any await; 0 when reserved, else the wait in ms. Pair with `settle`. */
  reserve(key: string, now: number): number {
    const wait = this.retryAfter(key, now);
    if (wait === 0) this.#pending.set(key, (this.#pending.get(key) ?? 0) + 1);
    return wait;
  }

  /** Ends a reservation; only a failure is recorded. */
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
