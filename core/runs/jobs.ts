import { executeRun } from './executor.ts';
import type { RunDeps } from './deps.ts';
import { addEvent } from './repo/events.ts';
import { claimForJob } from './repo/runs.ts';
import type { Job } from '../queue/repo.ts';
import type { JobContext, JobOutcome } from '../queue/worker.ts';

/** The run takes the job's claim token, so a reclaim fences out the old worker. */
export function runJobHandler(deps: RunDeps) {
  return async (job: Job, ctx: JobContext): Promise<JobOutcome> => {
    const runId = job.run_id!;
    const token = job.claim_token!;
    const now = new Date(deps.clock.now()).toISOString();
    // Queue wait is free: the clock starts at the first claim, kept on reclaim.
    const took = await claimForJob(deps.db, runId, token, now);
    if (took.changes !== 1) return { done: true }; // finished, cancelled or waiting: nothing to do
    await addEvent(deps.db, runId, job.reclaimed ? 'run.reclaimed' : 'run.claimed', { attempt: job.attempts }, now);
    let out;
    const sink: { retryInMs?: number } = {};
    try {
      out = await executeRun(deps, runId, token, { signal: ctx.signal, stopping: ctx.stopping, rethrowUnexpected: job.attempts < job.max_attempts, retryNoWork: true, sink });
    } catch (err) {
      // A store hiccup: back with a backoff, resumed from the ledger.
      deps.log.warn('run interrupted by an unexpected error; the job will be retried', { runId, attempt: job.attempts, error: (err as Error).message });
      return { retryInMs: Math.min(30_000, 500 * 2 ** Math.min(job.attempts, 6)), error: (err as Error).message };
    }
    // Refused before any work: the attempt is free, the run's clock keeps counting.
    if (out === 'retry_later') return { handback: true, afterMs: sink.retryInMs ?? 0 };
    return out === 'handed_back' ? { handback: true } : { done: true };
  };
}
