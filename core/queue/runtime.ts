import type { Core } from '../index.ts';
import { runsOf } from '../runs/runtime.ts';
import { enqueue, queueDepth } from './jobs.ts';
import { queueMetrics, type QueueMetrics } from './metrics.ts';
import { runJobHandler } from '../runs/jobs.ts';
import { queuedStarter } from '../runs/queued-start.ts';
import { postgresWake, sqliteWake } from './wake.ts';
import { QueueWorker, type JobHandler, type WorkerOptions } from './worker.ts';
import type { Requeue } from '../runs/approvals.ts';
import { maintenanceHandlers } from '../scheduler/maintenance.ts';
import { registerWorkerJobs } from '../workers/jobs.ts';

export interface QueueRuntime {
  metrics: QueueMetrics;
  /** Job kind → handler. Areas with background work (scheduler, notifications) add theirs. */
  handlers: Map<string, JobHandler>;
  starter: ReturnType<typeof queuedStarter>;
  /** Re-queues an approved durable run (inside the decision's transaction). */
  requeue: Requeue;
  /** A worker on this core's store (svc worker, or the web process's embedded workers). */
  worker(opts: WorkerOptions): QueueWorker;
}

const runtimes = new WeakMap<Core, QueueRuntime>();

export function queueOf(core: Core): QueueRuntime {
  const hit = runtimes.get(core);
  if (hit) return hit;
  const runs = runsOf(core).deps;
  const metrics = queueMetrics(core.metrics.registry, () => queueDepth(core.db));
  const handlers = new Map<string, JobHandler>([['run', runJobHandler(runs)], ...maintenanceHandlers(core)]);
  const rt: QueueRuntime = {
    metrics,
    handlers,
    starter: queuedStarter({ runs, metrics, fallbackLimit: core.config.RATE_LIMIT_CHAT_PER_MINUTE }),
    requeue: async (q, runId, approvalId) => {
      await enqueue(q, { kind: 'run', runId, uniqueKey: `resume:${approvalId}` }, core.clock.now());
    },
    worker: (opts) => {
      const wake = core.config.SERVICE_STORE === 'postgres' ? postgresWake(core.config.DATABASE_URL!, core.log) : sqliteWake(core.config.dbPath, core.log);
      return new QueueWorker({ db: core.db, clock: core.clock, log: core.log, handlers, wake, metrics }, opts);
    },
  };
  // Workers (automations): scheduled ticks, and end-of-run notifications enqueued with the run's end.
  registerWorkerJobs(core, rt);
  runtimes.set(core, rt);
  return rt;
}
