import type { Queryable, SqlValue } from '../../store/types.ts';
import { retryOnUniqueViolation } from '../../store/retry.ts';
import type { EventRow } from '../types.ts';

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

export async function eventsForRead(q: Queryable, runId: string): Promise<Omit<EventRow, 'run_id'>[]> {
  return q.all<Omit<EventRow, 'run_id'>>('SELECT seq, kind, data, created_at FROM run_events WHERE run_id = ? ORDER BY seq', [runId]);
}
