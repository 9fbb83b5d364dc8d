import type { Logger } from '../kernel/log.ts';
import { enqueue, type EnqueueInput } from '../queue/repo.ts';
import type { Db } from '../store/types.ts';
import { scheduledWorkers } from '../workers/repo.ts';
import { parseCron, type Cron } from '../kernel/cron.ts';
import { MAINTENANCE_KINDS } from './maintenance.ts';

/** Job kind the Workers (automations) area handles: payload {workerId, tick}. */
export const WORKER_TICK = 'worker.tick';
/** A new leader's look-back; far below job retention, so pruned ticks never return. */
export const CATCH_UP_MS = 3_600_000;

const iso = (ms: number) => new Date(ms).toISOString();

export const maintenanceKey = (kind: string, tickMs: number) => `sched:${kind}:${iso(tickMs)}`;
export const workerTickKey = (workerId: string, tickMs: number) => `worker:${workerId}:${iso(tickMs)}`;

interface WorkerRow {
  id: string;
  schedule: string;
  updated_at: string;
}

/**
 * One tick's jobs under unique keys, so a second scheduler adds nothing.
 * Each Worker gets only its latest due minute: no backlog (docs/scheduler.md).
 */
export class TickPlanner {
  readonly #db: Db;
  readonly #log: Logger;
  readonly #crons = new Map<string, Cron | Error>();
  readonly #warned = new Set<string>();

  constructor(db: Db, log: Logger) {
    this.#db = db;
    this.#log = log;
  }

  /** Enqueues the tick's jobs; returns the keys actually inserted. */
  async run(tickMs: number, nowMs: number, sinceMs: number): Promise<string[]> {
    const jobs: EnqueueInput[] = MAINTENANCE_KINDS.map((kind) => ({ kind, uniqueKey: maintenanceKey(kind, tickMs), maxAttempts: 3 }));
    const workers: WorkerRow[] = await scheduledWorkers(this.#db);
    const after = Math.max(sinceMs, nowMs - CATCH_UP_MS);
    for (const w of workers) {
      const cron = this.#cron(w);
      if (!cron) continue;
      // Minutes at or after the last update only (latestIn excludes its lower bound).
      const due = cron.latestIn(Math.max(after, Date.parse(w.updated_at) - 1), nowMs);
      if (due === undefined) continue;
      jobs.push({ kind: WORKER_TICK, payload: { workerId: w.id, tick: iso(due) }, uniqueKey: workerTickKey(w.id, due) });
    }
    return this.#db.tx(async (q) => {
      const inserted: string[] = [];
      for (const j of jobs) if ((await enqueue(q, j, nowMs)) !== undefined) inserted.push(j.uniqueKey!);
      return inserted;
    });
  }

  #cron(w: WorkerRow): Cron | undefined {
    let c = this.#crons.get(w.schedule);
    if (!c) {
      try {
        c = parseCron(w.schedule);
      } catch (err) {
        c = err as Error;
      }
      if (this.#crons.size > 10_000) this.#crons.clear(); // bounded memory; parsing is cheap
      this.#crons.set(w.schedule, c);
    }
    if (!(c instanceof Error)) return c;
    // The API validates schedules, so this came from elsewhere: warn once.
    const key = `${w.id}\0${w.schedule}`;
    if (!this.#warned.has(key)) {
      this.#warned.add(key);
      this.#log.warn('worker schedule is invalid; not scheduling it', { workerId: w.id, error: c.message });
    }
    return undefined;
  }
}
