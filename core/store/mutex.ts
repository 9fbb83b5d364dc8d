/** FIFO, so another caller's statements never land inside an open transaction. */
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

  /** At the next release, or at once when free. */
  whenReleased(): Promise<void> {
    if (!this.#locked) return Promise.resolve();
    return new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }

  #release(): void {
    this.#locked = false;
    // Plain statements first, so they run before the next transaction begins.
    for (const wake of this.#idleWaiters.splice(0)) wake();
    const next = this.#waiters.shift();
    if (next) {
      this.#locked = true; // hand over directly: no one may slip in between
      next();
    }
  }
}
