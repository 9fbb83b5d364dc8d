/**
 * Counts failures per key in a sliding window and answers how long a key must wait. In memory:
 * each replica throttles on its own, which bounds guessing to (replicas × limit) per window —
 * acceptable against online guessing at scrypt cost, and free of a write per attempt.
 */
export class FailureThrottle {
  readonly #hits = new Map<string, number[]>();
  readonly #limit: number;
  readonly #windowMs: number;

  constructor(limit: number, windowMs: number) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  /** Milliseconds until the key may try again; 0 when it may try now. */
  retryAfter(key: string, now: number): number {
    const hits = this.#prune(key, now);
    if (hits.length < this.#limit) return 0;
    return hits[hits.length - this.#limit]! + this.#windowMs - now;
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
