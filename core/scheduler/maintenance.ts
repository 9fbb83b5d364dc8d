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

/** Housekeeping jobs, one each per tick; idempotent, so retries and duplicates are harmless. */
export interface MaintenanceDeps {
  db: Db;
  clock: Clock;
  log: Logger;
}

export const CLOSE_OVERDUE_RUNS = 'maintenance.close_overdue_runs';
export const EXPIRE_INVITATIONS = 'maintenance.expire_invitations';
export const PRUNE = 'maintenance.prune';
export const MAINTENANCE_KINDS = [CLOSE_OVERDUE_RUNS, EXPIRE_INVITATIONS, PRUNE] as const;

/** Lets a live executor record its own 15-minute stop first. */
export const OVERDUE_GRACE_MS = 60_000;
/** Unused invitations are deleted this long after they expired or were revoked. */
export const INVITATION_RETENTION_MS = 30 * 24 * 3_600_000;
export const JOB_RETENTION_MS = 7 * 24 * 3_600_000;
export const PROCESS_RETENTION_MS = 3_600_000;
export const RATE_LIMIT_WINDOW_MS = 60_000;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Times out runs whose executor died. From running_since: waiting never counts (SPEC).
 * Fenced on status, so a finishing executor and this cannot both win.
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

/** Expiry is a clock check; this deletes old unused invitations. Used ones record who invited whom. */
export async function expireInvitations(d: MaintenanceDeps): Promise<number> {
  return pruneInvitations(d.db, iso(d.clock.now() - INVITATION_RETENTION_MS));
}

/** Deletes what nothing reads any more. */
export async function prune(d: MaintenanceDeps): Promise<Record<string, number>> {
  const now = d.clock.now();
  return {
    // The limiter's window is one minute.
    rateLimitHits: await pruneRateLimitHits(d.db, iso(now - RATE_LIMIT_WINDOW_MS)),
    sessions: await pruneExpiredSessions(d.db, iso(now)),
    // A week, far past the one-hour catch-up, so a pruned tick never re-enqueues.
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
