/**
 * A FIFO async mutex. The stores share one connection (SQLite) or must hand out transactions in
 * order, and an async transaction body yields between statements: without this, a second caller's
 * BEGIN or statements would land inside the first caller's open transaction.
 */
export class Mutex {
  #locked = false;
  readonly #waiters: Array<() => void> = [];
  readonly #idleWaiters: Array<() => void> = [];

  get locked(): boolean {
    return this.#locked;
  }

  /** Resolves with a release function once the caller holds the lock. */
  async lock(): Promise<() => void> {
    if (this.#locked) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    this.#locked = true;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#release();
    };
  }

  /** Resolves the next time the lock is released (or at once when it is free). */
  whenReleased(): Promise<void> {
    if (!this.#locked) return Promise.resolve();
    return new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }

  #release(): void {
    this.#locked = false;
    // Wake the plain-statement waiters first: their continuations are queued before the next
    // lock holder's, so a waiting single statement runs before the next transaction begins.
    for (const wake of this.#idleWaiters.splice(0)) wake();
    const next = this.#waiters.shift();
    if (next) {
      this.#locked = true; // hand over directly: no one may slip in between
      next();
    }
  }
}
