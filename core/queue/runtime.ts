import type { Core } from '../index.ts';
import type { QueueMetrics } from './metrics.ts';
import { postgresWake, sqliteWake } from './wake.ts';
import { QueueWorker, type JobHandler, type WorkerOptions } from './worker.ts';

export interface QueueRuntime {
  metrics: QueueMetrics;
  /** Job kind → handler, as core/services.ts collected them from the features. */
  handlers: ReadonlyMap<string, JobHandler>;
  /** A worker on this core's store (svc worker, or the web process's embedded workers). */
  worker(opts: WorkerOptions): QueueWorker;
}

/** The queue for one Core: it runs whatever handlers it is given and knows no job kind itself. */
export function createQueue(core: Core, handlers: ReadonlyMap<string, JobHandler>, metrics: QueueMetrics): QueueRuntime {
  const { db, clock, log, config } = core;
  return {
    metrics,
    handlers,
    worker: (opts) => {
      const wake = config.SERVICE_STORE === 'postgres' ? postgresWake(config.DATABASE_URL!, log) : sqliteWake(config.dbPath, log);
      return new QueueWorker({ db, clock, log, handlers, wake, metrics }, opts);
    },
  };
}
