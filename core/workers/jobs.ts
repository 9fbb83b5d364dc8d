import { deriveKey } from '../auth/keys.ts';
import type { Core } from '../index.ts';
import type { QueueRuntime } from '../queue/runtime.ts';
import { runsOf } from '../runs/runtime.ts';
import { enqueueNotify, notifyHandler, NOTIFY_KIND } from './notify.ts';
import { tickHandler, TICK_KIND } from './tick.ts';

/** The signing key of end-of-run notifications (receivers derive the same; docs/workers.md). */
export const notifyKey = (core: Core) => deriveKey(core.secrets.SERVICE_WEBHOOK_SECRET, 'worker-notify');

/**
 * Hooks the Workers' background work into a queue runtime: the `worker.tick` and `worker.notify`
 * job kinds, and the run engine's end hook that enqueues a notification in the transaction that
 * ends a Worker's run.
 */
export function registerWorkerJobs(core: Core, rt: QueueRuntime): void {
  const runs = runsOf(core).deps;
  rt.handlers.set(TICK_KIND, tickHandler(runs));
  rt.handlers.set(NOTIFY_KIND, notifyHandler({ db: core.db, clock: core.clock, log: core.log, key: notifyKey(core), config: core.config }));
  runs.onEnd = (q, run) => enqueueNotify(q, run, core.clock.now());
}
