import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Core } from '../index.ts';
import type { QueueMetrics } from '../queue/metrics.ts';
import { AlwaysLeader, type LeaderElector } from './leader.ts';
import { FileLockElector } from './leader-file.ts';
import { HttpLeaseElector } from './leader-http.ts';
import { Scheduler } from './scheduler.ts';

export { Scheduler } from './scheduler.ts';
export { WORKER_TICK, workerTickKey } from './ticks.ts';

/** The elector SERVICE_SCHEDULER_LEADER_MODE asks for. */
export function electorFor(core: Core, id: string): LeaderElector {
  const c = core.config;
  switch (c.SERVICE_SCHEDULER_LEADER_MODE) {
    case 'file-lock':
      return new FileLockElector({ path: c.schedulerLockPath, log: core.log });
    case 'http':
      return new HttpLeaseElector({ url: c.SERVICE_SCHEDULER_LEADER_URL!, holder: id, log: core.log });
    default:
      return new AlwaysLeader();
  }
}

/** The scheduler component of a `svc serve` or `svc worker` process (not started). */
export function createScheduler(core: Core, leaderGauge: QueueMetrics['leader']): Scheduler {
  const id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const { db, clock, log } = core;
  return new Scheduler({
    db,
    clock,
    log,
    elector: electorFor(core, id),
    id,
    tickMs: core.config.SERVICE_SCHEDULER_TICK_MS,
    leaderGauge,
  });
}
