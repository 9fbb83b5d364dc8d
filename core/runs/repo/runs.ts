import type { Queryable, RunResult, SqlValue } from '../../store/types.ts';
import { Fenced, type RunRow, type RunStatus } from '../types.ts';

/** Executor writes are fenced on (id, token, running), so a replaced executor stops. */

export const OWNED = 'id = ? AND claim_token = ? AND status = ?';

export async function getRun(q: Queryable, id: string): Promise<RunRow | undefined> {
  return q.one<RunRow>('SELECT * FROM runs WHERE id = ?', [id]);
}

export async function insertRun(q: Queryable, r: Omit<RunRow, 'output_text' | 'error_message' | 'error_code' | 'approval_id' | 'finished_at'>): Promise<void> {
  await q.run(
    `INSERT INTO runs (id, agent_id, agent_version, workspace_id, user_id, conversation_id, status, input_text, durable, claim_token, created_at, started_at, running_since)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [r.id, r.agent_id, r.agent_version, r.workspace_id, r.user_id, r.conversation_id, r.status, r.input_text, r.durable, r.claim_token, r.created_at, r.started_at, r.running_since],
  );
}

/** Ends (or parks) a run the executor owns. Throws Fenced when it no longer owns it. */
export async function finishRun(
  q: Queryable,
  id: string,
  token: string,
  to: Exclude<RunStatus, 'queued' | 'running'>,
  fields: { output_text?: string | null; error_message?: string | null; error_code?: string | null; approval_id?: string | null; finished_at?: string | null },
): Promise<void> {
  const sets = ['status = ?'];
  const params: SqlValue[] = [to];
  for (const [k, v] of Object.entries(fields)) sets.push(`${k} = ?`), params.push(v ?? null);
  const r = await q.run(`UPDATE runs SET ${sets.join(', ')} WHERE ${OWNED}`, [...params, id, token, 'running']);
  if (r.changes !== 1) throw new Fenced(id);
}

/** Is the run still ours? (before a side effect) */
export async function stillOwned(q: Queryable, id: string, token: string): Promise<boolean> {
  return !!(await q.one(`SELECT 1 AS x FROM runs WHERE ${OWNED}`, [id, token, 'running']));
}

/** The caller's run (its agent and user must match), for an approval decision. */
export async function callerRunDurable(q: Queryable, runId: string, agentId: string, userId: string): Promise<{ id: string; durable: number } | undefined> {
  return q.one<{ id: string; durable: number }>('SELECT id, durable FROM runs WHERE id = ? AND agent_id = ? AND user_id = ?', [runId, agentId, userId]);
}

// Out of waiting_input; no-ops unless it waits for this approval.

export async function requeueApproved(q: Queryable, runId: string, approvalId: string): Promise<RunResult> {
  return q.run(`UPDATE runs SET status = 'queued', claim_token = NULL, approval_id = NULL WHERE id = ? AND status = 'waiting_input' AND approval_id = ?`, [runId, approvalId]);
}

export async function resumeApproved(q: Queryable, runId: string, approvalId: string, token: string, nowIso: string): Promise<RunResult> {
  return q.run(
    `UPDATE runs SET status = 'running', claim_token = ?, running_since = ?, approval_id = NULL WHERE id = ? AND status = 'waiting_input' AND approval_id = ?`,
    [token, nowIso, runId, approvalId],
  );
}

export async function cancelRejected(q: Queryable, runId: string, approvalId: string, nowIso: string): Promise<RunResult> {
  return q.run(
    `UPDATE runs SET status = 'cancelled', approval_id = NULL, finished_at = ?, error_code = 'approval_rejected', error_message = 'A tool call was rejected by the user.'
        WHERE id = ? AND status = 'waiting_input' AND approval_id = ?`,
    [nowIso, runId, approvalId],
  );
}

/** Overdue runs whose executor is gone → timed_out. */
export async function timeOutOverdue(q: Queryable, nowIso: string, edgeIso: string): Promise<{ id: string }[]> {
  return q.all<{ id: string }>(
    `UPDATE runs SET status = 'timed_out', error_code = 'execution_time_limit', finished_at = ?,
         error_message = 'The run exceeded its 15-minute execution limit and the process running it did not close it; the scheduler did.'
       WHERE status = 'running' AND COALESCE(running_since, started_at, created_at) < ? RETURNING id`,
    [nowIso, edgeIso],
  );
}

/** A queue job claims its run under the job's token; the clock starts at the first claim. */
export async function claimForJob(q: Queryable, runId: string, token: string, nowIso: string): Promise<RunResult> {
  return q.run(
    `UPDATE runs SET status = 'running', claim_token = ?,
         running_since = CASE WHEN status = 'queued' THEN ? ELSE running_since END,
         started_at = COALESCE(started_at, ?)
       WHERE id = ? AND status IN ('queued', 'running')`,
    [token, nowIso, nowIso, runId],
  );
}

/** Back to the queue, unowned (fenced on the executor's token). */
export async function handBack(q: Queryable, runId: string, token: string): Promise<RunResult> {
  return q.run(`UPDATE runs SET status = 'queued', claim_token = NULL WHERE id = ? AND claim_token = ? AND status = 'running'`, [runId, token]);
}

export async function setWorker(q: Queryable, runId: string, workerId: string): Promise<void> {
  await q.run('UPDATE runs SET worker_id = ? WHERE id = ?', [workerId, runId]);
}

/** One run, or the caller's runs of one agent. */
export type RunsWhere = { runId: string } | { agentId: string; userId: string };
const whereOf = (w: RunsWhere): [string, string[]] => ('runId' in w ? ['id = ?', [w.runId]] : ['agent_id = ? AND user_id = ?', [w.agentId, w.userId]]);

/** A read, before taking the write lock. */
export async function anyRunningSince(q: Queryable, w: RunsWhere, edgeIso: string): Promise<boolean> {
  const [cond, params] = whereOf(w);
  return !!(await q.one(`SELECT 1 AS x FROM runs WHERE ${cond} AND status = 'running' AND running_since < ? LIMIT 1`, [...params, edgeIso]));
}

/** Closes those still running since before `edgeIso` as abandoned; returns their ids. */
export async function closeAbandoned(q: Queryable, w: RunsWhere, nowIso: string, edgeIso: string): Promise<{ id: string }[]> {
  const [cond, params] = whereOf(w);
  return q.all<{ id: string }>(
    `UPDATE runs SET status = 'timed_out', error_code = 'run_abandoned', finished_at = ?,
       error_message = 'The run was still running more than 20 minutes after it started: the process running it ended. It was closed by a status read.'
     WHERE ${cond} AND status = 'running' AND running_since < ? RETURNING id`,
    [nowIso, ...params, edgeIso],
  );
}

/** The run when it is this user's run of this agent. */
export async function callerRun(q: Queryable, runId: string, agentId: string, userId: string): Promise<RunRow | undefined> {
  return q.one<RunRow>('SELECT * FROM runs WHERE id = ? AND agent_id = ? AND user_id = ?', [runId, agentId, userId]);
}

/** The user's 25 newest runs of the agent. */
export async function recentRuns(q: Queryable, agentId: string, userId: string): Promise<RunRow[]> {
  return q.all<RunRow>('SELECT * FROM runs WHERE agent_id = ? AND user_id = ? ORDER BY created_at DESC, id DESC LIMIT 25', [agentId, userId]);
}

/** A row of the workbench's run list: the run and its agent's name. */
export type RunListRow = RunRow & { agent_name: string };

/** Newest first, after the (created_at, id) cursor. */
export async function runsPage(
  q: Queryable,
  f: { userId: string; workspaceId: string; limit: number; agentId?: string | undefined; cursor?: { createdAt: string; id: string } | undefined },
): Promise<RunListRow[]> {
  const where = ['r.workspace_id = ?', 'r.user_id = ?'];
  const params: (string | number)[] = [f.workspaceId, f.userId];
  if (f.agentId) where.push('r.agent_id = ?'), params.push(f.agentId);
  if (f.cursor) where.push('(r.created_at < ? OR (r.created_at = ? AND r.id < ?))'), params.push(f.cursor.createdAt, f.cursor.createdAt, f.cursor.id);
  return q.all<RunListRow>(
    `SELECT r.*, a.name AS agent_name FROM runs r JOIN agents a ON a.id = r.agent_id
      WHERE ${where.join(' AND ')} ORDER BY r.created_at DESC, r.id DESC LIMIT ?`,
    [...params, f.limit],
  );
}

/** Whose run it is (a share link reads it as its owner). */
export async function runOwner(q: Queryable, runId: string): Promise<{ agent_id: string; user_id: string; workspace_id: string } | undefined> {
  return q.one<{ agent_id: string; user_id: string; workspace_id: string }>('SELECT agent_id, user_id, workspace_id FROM runs WHERE id = ?', [runId]);
}

/** `agent_name` is null once the agent is gone. */
export async function runWithAgentName(q: Queryable, runId: string): Promise<(RunRow & { agent_name: string | null }) | undefined> {
  return q.one<RunRow & { agent_name: string | null }>('SELECT r.*, a.name AS agent_name FROM runs r LEFT JOIN agents a ON a.id = r.agent_id WHERE r.id = ?', [runId]);
}
