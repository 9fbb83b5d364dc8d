// A queue worker process for the job-table fault test: the real QueueWorker and job table, one
// test-only job kind `fault.noop` whose handler records each execution in a side table
// (fault_done), then exits once nothing is due (--once semantics).
// Env: FAULT_STORE=sqlite|postgres, FAULT_DB=<path or URL>, FAULT_CONCURRENCY.
import { systemClock } from '../../core/kernel/clock.ts';
import { createLogger } from '../../core/kernel/log.ts';
import { QueueWorker, type JobHandler } from '../../core/queue/worker.ts';
import { postgresWake, sqliteWake } from '../../core/queue/wake.ts';
import { openDb } from '../../core/store/index.ts';

const store = process.env.FAULT_STORE === 'postgres' ? 'postgres' : 'sqlite';
const target = process.env.FAULT_DB!;
const log = createLogger('warn');
const db = await openDb({ SERVICE_STORE: store, dbPath: target, DATABASE_URL: target, SERVICE_DB_POOL_SIZE: 4, SERVICE_LOG_LEVEL: 'warn' }, { logger: log });
const wake = store === 'postgres' ? postgresWake(target, log) : sqliteWake(target, log);
let worker!: QueueWorker;
const noop: JobHandler = async (job) => {
  await db.run('INSERT INTO fault_done (job_id, worker, attempt) VALUES (?, ?, ?)', [job.id, worker.id, job.attempts]);
  return { done: true };
};
worker = new QueueWorker({ db, clock: systemClock, log, handlers: new Map([['fault.noop', noop]]), wake }, { concurrency: Number(process.env.FAULT_CONCURRENCY ?? 4), leaseMs: 30_000, once: true });
await worker.start();
await worker.stop(5000);
await db.close();
