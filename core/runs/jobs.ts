import { executeRun } from './executor.ts';
import type { RunDeps } from './deps.ts';
import { addEvent } from './repo/events.ts';
import { claimForJob } from './repo/runs.ts';
import type { Job } from '../queue/repo.ts';
import type { JobContext, JobOutcome } from '../queue/worker.ts';

/**
 * A queued run's job. The run takes the job's claim token as its own, so exactly one executor
 * owns it: a reclaimed job (its worker died) gives the run a new token, and the dead worker's
 * writes — if it was only paused — match nothing. The executor resumes from the ledger, so a
 * completed step never runs again and a provider call is never repeated.
 */
export function runJobHandler(deps: RunDeps) {
  return async (job: Job, ctx: JobContext): Promise<JobOutcome> => {
    const runId = job.run_id!;
    const token = job.claim_token!;
    const now = new Date(deps.clock.now()).toISOString();
    // Queue wait does not count toward the 15-minute limit: the clock starts at the first claim
    // (or again after a hand-back); a reclaim after a crash keeps the original start.
    const took = await claimForJob(deps.db, runId, token, now);
    if (took.changes !== 1) return { done: true }; // finished, cancelled or waiting: nothing to do
    await addEvent(deps.db, runId, job.reclaimed ? 'run.reclaimed' : 'run.claimed', { attempt: job.attempts }, now);
    let out;
    const sink: { retryInMs?: number } = {};
    try {
      out = await executeRun(deps, runId, token, { signal: ctx.signal, stopping: ctx.stopping, rethrowUnexpected: job.attempts < job.max_attempts, retryNoWork: true, sink });
    } catch (err) {
      // A store hiccup: hand the job back with a backoff; the next claim resumes from the ledger.
      deps.log.warn('run interrupted by an unexpected error; the job will be retried', { runId, attempt: job.attempts, error: (err as Error).message });
      return { retryInMs: Math.min(30_000, 500 * 2 ** Math.min(job.attempts, 6)), error: (err as Error).message };
    }
    // The provider refused the call before any work: back to the queue after the backoff, the
    // run still `running` (its 15-minute clock keeps counting) and the attempt not counted.
    if (out === 'retry_later') return { handback: true, afterMs: sink.retryInMs ?? 0 };
    return out === 'handed_back' ? { handback: true } : { done: true };
  };
}
