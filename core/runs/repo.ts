import type { Queryable, SqlValue } from '../store/types.ts';
import { retryOnUniqueViolation } from '../store/retry.ts';
import { Fenced, type EventRow, type RunRow, type RunStatus, type StepRow } from './types.ts';

/**
 * The run tables' SQL. Every write an executor makes is fenced on (run id, claim token, status
 * running): once a run is timed out, abandoned or reclaimed, the old executor's writes match
 * nothing and it stops (`Fenced`).
 */

const OWNED = 'id = ? AND claim_token = ? AND status = ?';

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

export async function steps(q: Queryable, runId: string): Promise<StepRow[]> {
  return q.all<StepRow>('SELECT * FROM run_steps WHERE run_id = ? ORDER BY seq', [runId]);
}

/** Inserts a step only while the run is owned (one statement: fenced and atomic). A model step's
 * input and output must be `JSON.stringify` text: the run read splices them as stored (read-json.ts). */
export async function insertStep(q: Queryable, token: string, s: Pick<StepRow, 'run_id' | 'seq' | 'kind' | 'status' | 'name' | 'call_id' | 'input' | 'provider' | 'model' | 'started_at'>): Promise<void> {
  const r = await q.run(
    `INSERT INTO run_steps (run_id, seq, kind, status, name, call_id, input, provider, model, started_at)
     SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM runs WHERE ${OWNED})`,
    [s.run_id, s.seq, s.kind, s.status, s.name, s.call_id, s.input, s.provider, s.model, s.started_at, s.run_id, token, 'running'],
  );
  if (r.changes !== 1) throw new Fenced(s.run_id);
}

export async function updateStep(
  q: Queryable,
  token: string,
  runId: string,
  seq: number,
  from: StepRow['status'],
  f: Partial<Pick<StepRow, 'status' | 'output' | 'error' | 'input_tokens' | 'cached_tokens' | 'output_tokens' | 'reasoning_tokens' | 'total_tokens' | 'finished_at'>>,
): Promise<void> {
  const sets: string[] = [];
  const params: SqlValue[] = [];
  for (const [k, v] of Object.entries(f)) sets.push(`${k} = ?`), params.push(v ?? null);
  const r = await q.run(
    `UPDATE run_steps SET ${sets.join(', ')} WHERE run_id = ? AND seq = ? AND status = ?
       AND EXISTS (SELECT 1 FROM runs WHERE ${OWNED})`,
    [...params, runId, seq, from, runId, token, 'running'],
  );
  if (r.changes !== 1) throw new Fenced(runId);
}

/** Removes the ledger row of a model call that provably did no work (the provider refused it
 * before serving anything), so a retry sends it again; fenced like every executor write. */
export async function dropUnservedStep(q: Queryable, token: string, runId: string, seq: number): Promise<void> {
  const r = await q.run(
    `DELETE FROM run_steps WHERE run_id = ? AND seq = ? AND status = 'started' AND kind = 'model'
       AND EXISTS (SELECT 1 FROM runs WHERE ${OWNED})`,
    [runId, seq, runId, token, 'running'],
  );
  if (r.changes !== 1) throw new Fenced(runId);
}

export async function countEvents(q: Queryable, runId: string, kind: string): Promise<number> {
  return Number((await q.one<{ n: number }>('SELECT COUNT(*) AS n FROM run_events WHERE run_id = ? AND kind = ?', [runId, kind]))?.n ?? 0);
}

/** Appends an event with the next sequence number (retried if two writers race). The data is
 * always stored as `JSON.stringify` text: the run read splices it as stored (read-json.ts). */
export async function addEvent(q: Queryable, runId: string, kind: string, data: Record<string, unknown>, nowIso: string): Promise<void> {
  await addEvents(q, runId, [[kind, data]], nowIso);
}

/** An event to append: its kind and its data (stored as JSON text). */
export type NewEvent = readonly [kind: string, data: Record<string, unknown>];

/**
 * Appends events in order with the next sequence numbers after the run's last event (retried if two
 * writers race). `fresh`: the run was created in this same transaction, so its events start at 1
 * (a race, impossible then, would still end in the retry, which reads the last number).
 *
 * SQLite: the last number is read first and the rows inserted with plain VALUES. The one-statement
 * form (INSERT … SELECT MAX(seq) + 1 FROM run_events) reads the table it inserts into, which makes
 * SQLite stage the rows in a temporary table (OpenEphemeral): measured at ~2× the cost of the two
 * statements. PostgreSQL keeps the one-statement form: there a second statement is a round trip.
 */
export async function addEvents(q: Queryable, runId: string, list: readonly NewEvent[], nowIso: string, opts: { fresh?: boolean } = {}): Promise<void> {
  if (list.length === 0) return;
  let attempt = 0;
  await retryOnUniqueViolation(async () => {
    const fresh = opts.fresh === true && attempt++ === 0;
    if (q.dialect === 'sqlite') {
      const base = fresh ? 0 : Number((await q.one<{ m: number }>('SELECT COALESCE(MAX(seq), 0) AS m FROM run_events WHERE run_id = ?', [runId]))?.m ?? 0);
      const params: SqlValue[] = [];
      list.forEach(([kind, data], i) => params.push(runId, base + i + 1, kind, JSON.stringify(data), nowIso));
      return q.run(`INSERT INTO run_events (run_id, seq, kind, data, created_at) VALUES ${list.map(() => '(?, ?, ?, ?, ?)').join(', ')}`, params);
    }
    const params: SqlValue[] = [runId, nowIso, runId];
    for (const [kind, data] of list) params.push(kind, JSON.stringify(data));
    // VALUES columns are column1.. in PostgreSQL; the ordinals are literals so that they are typed
    // as integers (untyped parameters in VALUES would resolve to text).
    return q.run(
      `INSERT INTO run_events (run_id, seq, kind, data, created_at)
       SELECT ?, b.m + v.column1, v.column2, v.column3, ?
         FROM (SELECT COALESCE(MAX(seq), 0) AS m FROM run_events WHERE run_id = ?) b
         CROSS JOIN (VALUES ${list.map((_, i) => `(${i + 1}, ?, ?)`).join(', ')}) AS v`,
      params,
    );
  });
}

export async function events(q: Queryable, runId: string): Promise<EventRow[]> {
  return q.all<EventRow>('SELECT * FROM run_events WHERE run_id = ? ORDER BY seq', [runId]);
}
