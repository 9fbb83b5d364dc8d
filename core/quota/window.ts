/** Exact sliding minutes. Same-millisecond entries merge, bounding a window at 60,000
 * (docs/performance.md). */
export class SlidingWindow {
  readonly #windowMs: number;
  #times: number[] = [];
  #amounts: number[] = [];
  #head = 0;
  #sum = 0;

  constructor(windowMs = 60_000) {
    this.#windowMs = windowMs;
  }

  #prune(now: number): void {
    const edge = now - this.#windowMs;
    while (this.#head < this.#times.length && this.#times[this.#head]! <= edge) {
      this.#sum -= this.#amounts[this.#head]!;
      this.#head++;
    }
    // Compact occasionally so the arrays do not grow without bound.
    if (this.#head > 1024 && this.#head * 2 > this.#times.length) {
      this.#times = this.#times.slice(this.#head);
      this.#amounts = this.#amounts.slice(this.#head);
      this.#head = 0;
    }
  }

  total(now: number): number {
    this.#prune(now);
    return this.#sum;
  }

  add(now: number, amount = 1): void {
    this.#prune(now);
    if (amount <= 0) return;
    const last = this.#times.length - 1;
    if (last >= this.#head && this.#times[last] === now) {
      this.#amounts[last]! += amount;
      this.#sum += amount;
      return;
    }
    this.#times.push(now);
    this.#amounts.push(amount);
    this.#sum += amount;
  }

  /** Ms until the total is at most `target`. */
  msUntilAtMost(now: number, target: number): number {
    this.#prune(now);
    let sum = this.#sum;
    for (let i = this.#head; i < this.#times.length && sum > target; i++) {
      sum -= this.#amounts[i]!;
      if (sum <= target) return this.#times[i]! + this.#windowMs - now;
    }
    return 0;
  }

  /** Entries held (tests and diagnostics). */
  entries(): number {
    return this.#times.length - this.#head;
  }

  /** Ms until the window is empty. */
  msUntilEmpty(now: number): number {
    this.#prune(now);
    const last = this.#times[this.#times.length - 1];
    return last === undefined || this.#head >= this.#times.length ? 0 : last + this.#windowMs - now;
  }
}

/** OpenAI's reset format: `20ms`, `1s`, `6m0s`, `1h2m3s`. */
export function formatReset(ms: number): string {
  if (ms <= 0) return '0s';
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  let s = Math.ceil(ms / 1000);
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}
