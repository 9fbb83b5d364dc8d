import { deriveKey } from '../auth/keys.ts';
import type { Clock } from '../kernel/clock.ts';
import type { Core } from '../index.ts';
import type { JobHandler } from '../queue/worker.ts';
import type { RunDeps } from '../runs/deps.ts';
import { enqueueNotify, notifyHandler, NOTIFY_KIND, type NotifyDeps } from './notify.ts';
import { tickHandler, TICK_KIND } from './tick.ts';

/** The signing key of end-of-run notifications (receivers derive the same; docs/workers.md). */
export const notifyKey = (core: Core) => deriveKey(core.secrets.SERVICE_WEBHOOK_SECRET, 'worker-notify');

/** The Workers' job kinds: scheduled ticks and end-of-run notifications. */
export function workerJobs(runs: RunDeps, notify: NotifyDeps): [string, JobHandler][] {
  return [
    [TICK_KIND, tickHandler(runs)],
    [NOTIFY_KIND, notifyHandler(notify)],
  ];
}

/** The run engine's end hook: enqueues a Worker's notification in the run's last transaction. */
export const notifyOnEnd = (clock: Clock): NonNullable<RunDeps['onEnd']> => (q, run) => enqueueNotify(q, run, clock.now());
