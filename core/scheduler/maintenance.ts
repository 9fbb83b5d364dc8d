import { pruneExpiredSessions } from '../accounts/repo.ts';
import type { Clock } from '../kernel/clock.ts';
import { pruneInvitations } from '../invitations/repo.ts';
import type { Logger } from '../kernel/log.ts';
import { pruneFinishedJobs } from '../queue/repo.ts';
import type { JobHandler } from '../queue/worker.ts';
import { addEvent } from '../runs/repo/events.ts';
import { pruneRateLimitHits } from '../runs/repo/ratelimit.ts';
import { timeOutOverdue } from '../runs/repo/runs.ts';
import { EXECUTION_LIMIT_MS } from '../runs/types.ts';
import type { Db } from '../store/types.ts';
import { pruneProcesses } from './repo.ts';

/**
 * The scheduler's housekeeping jobs. Each is idempotent (a retried or duplicated job changes
 * nothing more), runs on any queue worker, and is enqueued once per scheduler tick.
 */
export interface MaintenanceDeps {
  db: Db;
  clock: Clock;
  log: Logger;
}

export const CLOSE_OVERDUE_RUNS = 'maintenance.close_overdue_runs';
export const EXPIRE_INVITATIONS = 'maintenance.expire_invitations';
export const PRUNE = 'maintenance.prune';
export const MAINTENANCE_KINDS = [CLOSE_OVERDUE_RUNS, EXPIRE_INVITATIONS, PRUNE] as const;

/** A live executor stops its own run at 15 minutes; this margin lets it write that outcome itself. */
export const OVERDUE_GRACE_MS = 60_000;
/** Unused invitations are deleted this long after they expired or were revoked. */
export const INVITATION_RETENTION_MS = 30 * 24 * 3_600_000;
export const JOB_RETENTION_MS = 7 * 24 * 3_600_000;
export const PROCESS_RETENTION_MS = 3_600_000;
export const RATE_LIMIT_WINDOW_MS = 60_000;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Runs still `running` past the 15-minute execution limit (plus a grace) whose executor is gone
 * → timed_out, execution_time_limit. Counted from running_since, so queue wait and approval wait
 * never count, and a `queued` run is never touched (SPEC: never failed for waiting). Fenced on
 * status: an executor that finishes at the same moment and this update cannot both win.
 */
export async function closeOverdueRuns(d: MaintenanceDeps): Promise<string[]> {
  const now = d.clock.now();
  const edge = iso(now - EXECUTION_LIMIT_MS - OVERDUE_GRACE_MS);
  return d.db.tx(async (q) => {
    const closed = await timeOutOverdue(q, iso(now), edge);
    for (const r of closed) await addEvent(q, r.id, 'run.timed_out', { errorCode: 'execution_time_limit', closedBy: 'scheduler' }, iso(now));
    return closed.map((r) => r.id);
  });
}

/**
 * Invitations need no state change to expire: redemption and listing compare expires_at with the
 * clock. What is left is housekeeping: unused invitations that expired, or were revoked, more than
 * 30 days ago are deleted (their token hashes are dead weight). Used invitations are kept: they
 * record who invited whom.
 */
export async function expireInvitations(d: MaintenanceDeps): Promise<number> {
  return pruneInvitations(d.db, iso(d.clock.now() - INVITATION_RETENTION_MS));
}

/** Deletes what nothing reads any more. */
export async function prune(d: MaintenanceDeps): Promise<Record<string, number>> {
  const now = d.clock.now();
  return {
    // The run-start limiter's sliding window is one minute; older hits never count again.
    rateLimitHits: await pruneRateLimitHits(d.db, iso(now - RATE_LIMIT_WINDOW_MS)),
    sessions: await pruneExpiredSessions(d.db, iso(now)),
    // Finished jobs keep their unique keys for a week; the scheduler never looks back further than
    // an hour, so a pruned tick can never be enqueued again.
    jobs: await pruneFinishedJobs(d.db, iso(now - JOB_RETENTION_MS)),
    processes: await pruneProcesses(d.db, iso(now - PROCESS_RETENTION_MS)),
  };
}

/** Job kind → handler, for the queue runtime. */
export function maintenanceHandlers(d: MaintenanceDeps): Map<string, JobHandler> {
  const wrap = (kind: string, fn: () => Promise<unknown>): [string, JobHandler] => [
    kind,
    async () => {
      const result = await fn();
      const changed = Array.isArray(result) ? result.length : typeof result === 'number' ? result : Object.values(result as Record<string, number>).reduce((a, b) => a + b, 0);
      if (changed > 0) d.log.info('maintenance', { kind, result: Array.isArray(result) ? { runs: result } : result });
      return { done: true };
    },
  ];
  return new Map([wrap(CLOSE_OVERDUE_RUNS, () => closeOverdueRuns(d)), wrap(EXPIRE_INVITATIONS, () => expireInvitations(d)), wrap(PRUNE, () => prune(d))]);
}
