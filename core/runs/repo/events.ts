import type { Queryable, SqlValue } from '../../store/types.ts';
import { retryOnUniqueViolation } from '../../store/retry.ts';
import type { EventRow } from '../types.ts';

export async function countEvents(q: Queryable, runId: string, kind: string): Promise<number> {
  return Number((await q.one<{ n: number }>('SELECT COUNT(*) AS n FROM run_events WHERE run_id = ? AND kind = ?', [runId, kind]))?.n ?? 0);
}

/** Data stays `JSON.stringify` text: read-json.ts splices it. */
export async function addEvent(q: Queryable, runId: string, kind: string, data: Record<string, unknown>, nowIso: string): Promise<void> {
  await addEvents(q, runId, [[kind, data]], nowIso);
}

/** An event to append: its kind and its data (stored as JSON text). */
export type NewEvent = readonly [kind: string, data: Record<string, unknown>];

/** `fresh`: created in this transaction, so numbering starts at 1. SQLite reads the last
 * seq first (docs/architecture.md); PostgreSQL saves the round trip. */
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
    // Literal ordinals: untyped VALUES parameters would be text.
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

export async function eventsForRead(q: Queryable, runId: string): Promise<Omit<EventRow, 'run_id'>[]> {
  return q.all<Omit<EventRow, 'run_id'>>('SELECT seq, kind, data, created_at FROM run_events WHERE run_id = ? ORDER BY seq', [runId]);
}
