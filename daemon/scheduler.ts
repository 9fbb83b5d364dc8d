import type { Core } from '../core/index.ts';
import type { Scheduler } from '../core/scheduler/index.ts';
import type { Services } from '../core/services.ts';

/** serve and worker both run one; leader election picks who enqueues. */
export function startScheduler(core: Core, services: Services): Scheduler {
  const s = services.scheduler;
  s.start();
  core.onClose(() => s.stop());
  core.log.info('scheduler started', { scheduler: s.id, mode: s.mode, tickMs: core.config.SERVICE_SCHEDULER_TICK_MS });
  return s;
}
