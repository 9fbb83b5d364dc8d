import type { Clock } from '../kernel/clock.ts';
import type { Db } from '../store/types.ts';
import { completeMany, type Job } from './repo.ts';

/**
 * Coalesces job completions: jobs finishing in the same turn of the event loop are marked done in
 * one fenced statement (one commit instead of one each), which is most of a busy worker's writes.
 */
export class Completer {
  readonly #db: Db;
  readonly #clock: Clock;
  #batch: { job: Pick<Job, 'id' | 'claim_token'>; resolve: (ok: boolean) => void; reject: (e: unknown) => void }[] = [];
  #scheduled = false;

  constructor(db: Db, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  /** Resolves true when the job was still ours and is now done. */
  complete(job: Pick<Job, 'id' | 'claim_token'>): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#batch.push({ job, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => void this.#flush());
      }
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#batch;
    this.#batch = [];
    this.#scheduled = false;
    try {
      const done = await completeMany(this.#db, batch.map((b) => b.job), this.#clock.now());
      for (const b of batch) b.resolve(done.has(b.job.id));
    } catch (err) {
      for (const b of batch) b.reject(err);
    }
  }
}
