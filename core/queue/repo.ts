import { randomBytes } from 'node:crypto';
import { newId } from '../kernel/ids.ts';
import { prepared, type Db, type Queryable } from '../store/types.ts';

/** At-least-once; writes are fenced on the claim token, so a worker that lost its lease
 * cannot complete or fail the job. */
export interface Job {
  id: string;
  kind: string;
  run_id: string | null;
  payload: string;
  unique_key: string | null;
  status: 'queued' | 'running' | 'done' | 'failed';
  run_at: string;
  attempts: number;
  max_attempts: number;
  claim_token: string | null;
  claimed_by: string | null;
  claimed_at: string | null;
  lease_until: string | null;
  created_at: string;
  /** Set by claim(): the job's lease had expired under another worker. */
  reclaimed?: boolean;
}

export interface EnqueueInput {
  kind: string;
  runId?: string | null;
  payload?: Record<string, unknown>;
  /** A second enqueue with the same key is a no-op (scheduler ticks, resumes). */
  uniqueKey?: string;
  runAt?: number;
  maxAttempts?: number;
}

const iso = (ms: number) => new Date(ms).toISOString();
export const JOB_CHANNEL = 'svc_jobs';

// The statements every job goes through are prepared (see `prepared`): fixed text, explicit columns.
const JOB_COLUMNS = 'id, kind, run_id, payload, unique_key, status, run_at, attempts, max_attempts, claim_token, claimed_by, claimed_at, lease_until, created_at';
const INSERT_JOB = prepared(
  'svc_job_insert',
  `INSERT INTO jobs (id, kind, run_id, payload, unique_key, status, run_at, max_attempts, created_at)
     VALUES (?, ?, ?, ?, ?, 'queued', ?, ?, ?) ON CONFLICT DO NOTHING`,
);
const CLAIM_SET = `status = 'running', claim_token = ? || jobs.id, claimed_by = ?, claimed_at = ?, lease_until = ?, attempts = jobs.attempts + 1`;
const pgClaimFrom = (name: string, where: string) =>
  prepared(
    name,
    `WITH due AS (SELECT id, status FROM jobs WHERE ${where} LIMIT ? FOR UPDATE SKIP LOCKED)
     UPDATE jobs SET ${CLAIM_SET} FROM due WHERE jobs.id = due.id
     RETURNING ${JOB_COLUMNS.split(', ').map((c) => `jobs.${c}`).join(', ')}, due.status AS prev_status`,
  );
const PG_CLAIM_DUE = pgClaimFrom('svc_job_claim_due', `status = 'queued' AND run_at <= ? ORDER BY run_at`);
const PG_CLAIM_EXPIRED = pgClaimFrom('svc_job_claim_expired', `status = 'running' AND lease_until < ?`);
// One text for any batch size: the (id, token) pairs travel as one JSON parameter.
const PG_COMPLETE = prepared(
  'svc_job_complete',
  `UPDATE jobs SET status = 'done', finished_at = ?, lease_until = NULL
     FROM json_to_recordset(?::json) AS c(id text, t text)
    WHERE jobs.id = c.id AND jobs.claim_token = c.t AND jobs.status = 'running' RETURNING jobs.id`,
);
const RENEW = prepared('svc_job_renew', `UPDATE jobs SET lease_until = ? WHERE id = ? AND claim_token = ? AND status = 'running'`);

/** Undefined when the unique key exists; PostgreSQL workers wake after commit. */
export async function enqueue(q: Queryable, j: EnqueueInput, nowMs: number): Promise<string | undefined> {
  const id = newId('job');
  const params = [id, j.kind, j.runId ?? null, JSON.stringify(j.payload ?? {}), j.uniqueKey ?? null, iso(j.runAt ?? nowMs), j.maxAttempts ?? 20, iso(nowMs)];
  const r = await q.run(INSERT_JOB, params);
  if (r.changes !== 1) return undefined;
  // After commit (see notifyAfterCommit).
  q.notifyAfterCommit?.(JOB_CHANNEL);
  return id;
}

export interface ClaimOptions {
  workerId: string;
  limit: number;
  leaseMs: number;
  nowMs: number;
  /** Also expired leases: a second scan, so about once a second. */
  reclaim?: boolean;
}

type Candidate = { id: string; status: string };

/** One index per candidate kind, so cost is flat in queue size; SKIP LOCKED keeps
 * PostgreSQL claimers from waiting on each other. */
export async function claim(db: Db, o: ClaimOptions): Promise<Job[]> {
  const now = iso(o.nowMs);
  const base = randomBytes(12).toString('base64url');
  const setParams = [base, o.workerId, now, iso(o.nowMs + o.leaseMs)];
  const finish = (rows: (Job & { prev_status?: string })[], prev: Map<string, string> | undefined) =>
    rows.map(({ prev_status, ...r }) => ({ ...r, attempts: Number(r.attempts), max_attempts: Number(r.max_attempts), reclaimed: (prev_status ?? prev?.get(r.id)) === 'running' }));

  if (db.dialect === 'postgres') {
    const claimFrom = async (stmt: typeof PG_CLAIM_DUE, limit: number) => db.all<Job & { prev_status: string }>(stmt, [now, limit, ...setParams]);
    const out = o.reclaim ? await claimFrom(PG_CLAIM_EXPIRED, o.limit) : [];
    if (out.length < o.limit) out.push(...(await claimFrom(PG_CLAIM_DUE, o.limit - out.length)));
    return finish(out, undefined);
  }
  return db.tx(async (q) => {
    const due: Candidate[] = o.reclaim ? await q.all<Candidate>(`SELECT id, status FROM jobs WHERE status = 'running' AND lease_until < ? LIMIT ?`, [now, o.limit]) : [];
    if (due.length < o.limit) due.push(...(await q.all<Candidate>(`SELECT id, status FROM jobs WHERE status = 'queued' AND run_at <= ? ORDER BY run_at LIMIT ?`, [now, o.limit - due.length])));
    if (due.length === 0) return [];
    const rows = await q.all<Job>(`UPDATE jobs SET ${CLAIM_SET} WHERE id IN (${due.map(() => '?').join(', ')}) RETURNING ${JOB_COLUMNS}`, [...setParams, ...due.map((d) => d.id)]);
    return finish(rows, new Map(due.map((d) => [d.id, d.status])));
  });
}

/** False: the claim was lost, stop. */
export async function renew(db: Queryable, job: Pick<Job, 'id' | 'claim_token'>, leaseUntilMs: number): Promise<boolean> {
  const r = await db.run(RENEW, [iso(leaseUntilMs), job.id, job.claim_token]);
  return r.changes === 1;
}

/** One statement, each fenced; returns the ids still ours. */
export async function completeMany(db: Queryable, jobs: readonly Pick<Job, 'id' | 'claim_token'>[], nowMs: number): Promise<Set<string>> {
  if (jobs.length === 0) return new Set();
  if (db.dialect === 'postgres') {
    const rows = await db.all<{ id: string }>(PG_COMPLETE, [iso(nowMs), JSON.stringify(jobs.map((j) => ({ id: j.id, t: j.claim_token })))]);
    return new Set(rows.map((r) => r.id));
  }
  const pairs = jobs.map(() => '(?, ?)').join(', ');
  const rows = await db.all<{ id: string }>(
    `UPDATE jobs SET status = 'done', finished_at = ?, lease_until = NULL
      WHERE status = 'running' AND (id, claim_token) IN (VALUES ${pairs}) RETURNING id`,
    [iso(nowMs), ...jobs.flatMap((j) => [j.id, j.claim_token])],
  );
  return new Set(rows.map((r) => r.id));
}

/** No `retryAtMs`: failed for good. */
export async function failJob(db: Queryable, job: Pick<Job, 'id' | 'claim_token'>, error: string, nowMs: number, retryAtMs?: number): Promise<boolean> {
  const r =
    retryAtMs === undefined
      ? await db.run(`UPDATE jobs SET status = 'failed', last_error = ?, finished_at = ?, lease_until = NULL WHERE id = ? AND claim_token = ? AND status = 'running'`, [error.slice(0, 2000), iso(nowMs), job.id, job.claim_token])
      : await db.run(`UPDATE jobs SET status = 'queued', last_error = ?, run_at = ?, claim_token = NULL, lease_until = NULL WHERE id = ? AND claim_token = ? AND status = 'running'`, [error.slice(0, 2000), iso(retryAtMs), job.id, job.claim_token]);
  return r.changes === 1;
}

/** Unfinished, attempt not counted. */
export async function release(db: Queryable, job: Pick<Job, 'id' | 'claim_token'>, runAtMs: number): Promise<boolean> {
  const r = await db.run(
    `UPDATE jobs SET status = 'queued', run_at = ?, claim_token = NULL, claimed_by = NULL, lease_until = NULL, attempts = attempts - 1 WHERE id = ? AND claim_token = ? AND status = 'running'`,
    [iso(runAtMs), job.id, job.claim_token],
  );
  return r.changes === 1;
}

export async function queueDepth(db: Queryable): Promise<{ queued: number; running: number }> {
  // Each count from its partial index, not a scan.
  const r = await db.one<{ queued: number; running: number }>(
    `SELECT (SELECT COUNT(*) FROM jobs WHERE status = 'queued') AS queued, (SELECT COUNT(*) FROM jobs WHERE status = 'running') AS running`,
  );
  return { queued: Number(r?.queued ?? 0), running: Number(r?.running ?? 0) };
}

/** Their unique keys go with them. */
export async function pruneFinishedJobs(q: Queryable, beforeIso: string): Promise<number> {
  return (await q.run(`DELETE FROM jobs WHERE status IN ('done', 'failed') AND COALESCE(finished_at, created_at) < ?`, [beforeIso])).changes;
}
