import { hostname } from 'node:os';
import { backoffMs } from '../kernel/backoff.ts';
import type { Clock } from '../kernel/clock.ts';
import { newId } from '../kernel/ids.ts';
import type { Logger } from '../kernel/log.ts';
import type { Db } from '../store/types.ts';
import { claim, failJob, release, renew, type Job } from './repo.ts';
import { Completer } from './completer.ts';
import type { QueueMetrics } from './metrics.ts';
import type { WakeSource } from './wake.ts';

/** What a handler gets besides the job. */
export interface JobContext {
  /** Lease lost: stop without writing. */
  signal: AbortSignal;
  /** Finish the step, then hand the job back. */
  stopping(): boolean;
}

/** `handback` does not count the attempt; `retry` does. */
export type JobOutcome = { done: true } | { handback: true; afterMs?: number } | { retryInMs: number; error: string };
export type JobHandler = (job: Job, ctx: JobContext) => Promise<JobOutcome>;

export interface WorkerOptions {
  concurrency: number;
  leaseMs?: number;
  /** Longest sleep between polls when idle (wake-ups cut it short). */
  maxIdleMs?: number;
  /** `--once`: process what is due, then stop. */
  once?: boolean;
}

/** Wakes on NOTIFY or a WAL change; otherwise polls with backoff. */
export class QueueWorker {
  readonly id = `${hostname()}:${process.pid}:${newId('w').slice(2, 10)}`;
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #handlers: ReadonlyMap<string, JobHandler>;
  readonly #wake: WakeSource | undefined;
  readonly #metrics: QueueMetrics | undefined;
  readonly #o: Required<Omit<WorkerOptions, 'once'>> & { once: boolean };
  readonly #inflight = new Map<string, Promise<void>>();
  #stopping = false;
  #loop: Promise<void> | undefined;
  #kick: (() => void) | undefined;
  readonly #completer: Completer;

  constructor(deps: { db: Db; clock: Clock; log: Logger; handlers: ReadonlyMap<string, JobHandler>; wake?: WakeSource; metrics?: QueueMetrics }, o: WorkerOptions) {
    this.#db = deps.db;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#handlers = deps.handlers;
    this.#wake = deps.wake;
    this.#metrics = deps.metrics;
    this.#o = { leaseMs: 30_000, maxIdleMs: 1000, once: false, ...o };
    this.#completer = new Completer(deps.db, deps.clock);
  }

  get inflight(): number {
    return this.#inflight.size;
  }

  start(): Promise<void> {
    this.#wake?.onWake(() => this.#kick?.());
    this.#loop ??= this.#run();
    return this.#loop;
  }

  /** In-flight jobs finish or hand back by `deadlineMs`. */
  async stop(deadlineMs = 30_000): Promise<void> {
    this.#stopping = true;
    this.#kick?.();
    await this.#loop;
    const all = Promise.allSettled([...this.#inflight.values()]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise((r) => (timer = setTimeout(r, deadlineMs)))]);
    clearTimeout(timer);
    await this.#wake?.close();
  }

  async #run(): Promise<void> {
    let idle = 1;
    let lastReclaim = 0;
    while (!this.#stopping) {
      const free = this.#o.concurrency - this.#inflight.size;
      let jobs: Job[] = [];
      if (free > 0) {
        try {
          const now = this.#clock.now();
          // Expired leases are looked for about once a second (and on --once passes).
          const reclaim = this.#o.once || now - lastReclaim >= 1000;
          if (reclaim) lastReclaim = now;
          jobs = await claim(this.#db, { workerId: this.id, limit: free, leaseMs: this.#o.leaseMs, nowMs: now, reclaim });
        } catch (err) {
          this.#log.warn('claiming jobs failed; retrying', { error: (err as Error).message });
        }
      }
      for (const job of jobs) this.#start(job);
      if (jobs.length > 0) {
        idle = 1;
        continue;
      }
      if (this.#o.once && this.#inflight.size === 0) return;
      // Until woken, a slot frees, or the poll interval passes.
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, idle);
        function done() {
          clearTimeout(t);
          resolve();
        }
        this.#kick = done;
      });
      this.#kick = undefined;
      idle = Math.min(this.#o.maxIdleMs, idle * 2);
    }
  }

  #start(job: Job): void {
    const p = this.#process(job).finally(() => {
      this.#inflight.delete(job.id);
      this.#kick?.();
    });
    this.#inflight.set(job.id, p);
  }

  async #process(job: Job): Promise<void> {
    const m = this.#metrics;
    if (job.reclaimed) m?.reclaimed.inc();
    m?.wait.observe({ kind: job.kind }, Math.max(0, (Date.parse(job.claimed_at!) - Date.parse(job.run_at)) / 1000));
    const t0 = performance.now();
    const ac = new AbortController();
    const renewEvery = Math.max(50, Math.floor(this.#o.leaseMs / 3));
    const renewer = setInterval(() => {
      renew(this.#db, job, this.#clock.now() + this.#o.leaseMs)
        .then((ok) => {
          if (!ok) ac.abort(new Error('lease lost'));
        })
        .catch((err: unknown) => this.#log.warn('lease renewal failed', { jobId: job.id, error: (err as Error).message }));
    }, renewEvery);
    renewer.unref();
    const handler = this.#handlers.get(job.kind);
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      if (job.attempts > job.max_attempts) {
        await failJob(this.#db, job, `gave up after ${job.max_attempts} attempts`, this.#clock.now());
        return;
      }
      const out = await handler(job, { signal: ac.signal, stopping: () => this.#stopping });
      if (ac.signal.aborted) return; // lost the lease: the new owner decides
      const now = this.#clock.now();
      if ('done' in out) await this.#completer.complete(job);
      else if ('handback' in out) await release(this.#db, job, now + (out.afterMs ?? 0));
      else await failJob(this.#db, job, out.error, now, now + out.retryInMs);
      m?.finished.observe({ kind: job.kind }, (performance.now() - t0) / 1000);
    } catch (err) {
      this.#log.error('job failed', { jobId: job.id, kind: job.kind, error: err });
      const backoff = backoffMs({ retries: job.attempts, baseMs: 1000, maxMs: 60_000, maxDoublings: 6 });
      await failJob(this.#db, job, (err as Error).message ?? String(err), this.#clock.now(), this.#clock.now() + backoff).catch(() => {});
    } finally {
      clearInterval(renewer);
    }
  }
}
