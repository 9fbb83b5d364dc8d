import { createHash } from 'node:crypto';
import { isAppError } from '../kernel/errors.ts';
import { enqueue, type Job } from '../queue/repo.ts';
import type { JobOutcome } from '../queue/worker.ts';
import type { RunDeps } from '../runs/deps.ts';
import { insertNewRun, prepareRun } from '../runs/start.ts';
import { UniqueViolation } from '../store/types.ts';
import { scheduledWorker } from './repo.ts';
import { renderTemplate } from './template.ts';

export const TICK_KIND = 'worker.tick';

/** The run id of one (Worker, tick): a retried or duplicated tick job inserts the same id and
 * meets the primary key instead of starting a second run. Same shape as newId('run'). */
export function tickRunId(workerId: string, tick: string): string {
  const h = createHash('sha256').update(`${workerId}\n${tick}`).digest();
  let s = '';
  for (const b of h) s += (b % 36).toString(36);
  return `run_${s.slice(0, 20)}`;
}

/**
 * `worker.tick` (enqueued by the scheduler for a Worker with a cron schedule, payload
 * `{workerId, tick}`): queues one run of the Worker's agent as its owner, input = the template
 * rendered with an empty body. The run row and its run job are written in one transaction here,
 * without the web path's 5-second fallback (this already runs in a worker; a busy store just
 * retries the tick) and without the per-user start allowance (the schedule bounds the rate).
 * A Worker that is gone, disabled, unscheduled, or whose agent its owner can no longer run: the
 * tick is dropped with a warning.
 */
export function tickHandler(runs: RunDeps) {
  return async (job: Job): Promise<JobOutcome> => {
    const p = JSON.parse(job.payload) as { workerId?: string; tick?: string | number };
    if (!p.workerId || p.tick === undefined) return { done: true };
    const w = await scheduledWorker(runs.db, p.workerId);
    if (!w) return { done: true };
    const input = { agentId: w.agent_id, userId: w.owner_user_id, inputText: renderTemplate(w.input_template, '') };
    let version;
    try {
      version = await prepareRun(runs, input);
    } catch (err) {
      if (!isAppError(err) || err.status >= 500) throw err;
      runs.log.warn('scheduled Worker run not started', { workerId: w.id, tick: p.tick, error: err.message });
      return { done: true };
    }
    try {
      await insertNewRun(runs, version, input, { status: 'queued', durable: true, runId: tickRunId(w.id, String(p.tick)), workerId: w.id }, async (q, r) => {
        await enqueue(q, { kind: 'run', runId: r.id }, runs.clock.now());
      });
      runs.metrics.started.inc({ mode: 'queued' });
    } catch (err) {
      if (!(err instanceof UniqueViolation)) throw err;
    }
    return { done: true };
  };
}
