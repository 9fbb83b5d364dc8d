import type { Queryable, SqlValue } from '../../store/types.ts';
import { Fenced, type StepRow } from '../types.ts';
import { OWNED } from './runs.ts';

// The run_steps ledger; writes are fenced on the run's claim (see runs.ts).

export async function steps(q: Queryable, runId: string): Promise<StepRow[]> {
  return q.all<StepRow>('SELECT * FROM run_steps WHERE run_id = ? ORDER BY seq', [runId]);
}

/** Fenced in one statement; model input and output must be `JSON.stringify` text (read-json.ts). */
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

/** Only for `noWork` calls, so the retry sends it again. */
export async function dropUnservedStep(q: Queryable, token: string, runId: string, seq: number): Promise<void> {
  const r = await q.run(
    `DELETE FROM run_steps WHERE run_id = ? AND seq = ? AND status = 'started' AND kind = 'model'
       AND EXISTS (SELECT 1 FROM runs WHERE ${OWNED})`,
    [runId, seq, runId, token, 'running'],
  );
  if (r.changes !== 1) throw new Fenced(runId);
}

/** Not fenced: a waiting run has no owner. */
export async function rejectWaitingStep(q: Queryable, runId: string, seq: number, output: string, nowIso: string): Promise<void> {
  await q.run(`UPDATE run_steps SET status = 'rejected', output = ?, finished_at = ? WHERE run_id = ? AND seq = ? AND status = 'waiting_approval'`, [
    output,
    nowIso,
    runId,
    seq,
  ]);
}

/** The columns a run read shows (not run_id: the caller named the run). */
const READ_COLUMNS = 'seq, kind, status, name, call_id, input, output, error, provider, model, input_tokens, cached_tokens, output_tokens, reasoning_tokens, total_tokens, started_at, finished_at';

export async function stepsForRead(q: Queryable, runId: string): Promise<Omit<StepRow, 'run_id'>[]> {
  return q.all<Omit<StepRow, 'run_id'>>(`SELECT ${READ_COLUMNS} FROM run_steps WHERE run_id = ? ORDER BY seq`, [runId]);
}

export interface ModelUsageRow {
  run_id: string;
  input_tokens: number;
  cached_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  total_tokens: number;
  model_calls: number;
}

/** A second query: GROUP BY r.* would need every column listed on PostgreSQL. */
export async function modelUsageByRun(q: Queryable, runIds: readonly string[]): Promise<ModelUsageRow[]> {
  return q.all<ModelUsageRow>(
    `SELECT run_id, SUM(input_tokens) AS input_tokens, SUM(cached_tokens) AS cached_tokens, SUM(output_tokens) AS output_tokens,
            SUM(reasoning_tokens) AS reasoning_tokens, SUM(total_tokens) AS total_tokens, COUNT(*) AS model_calls
       FROM run_steps WHERE kind = 'model' AND run_id IN (${runIds.map(() => '?').join(', ')}) GROUP BY run_id`,
    runIds,
  );
}
