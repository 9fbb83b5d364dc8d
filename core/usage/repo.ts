import type { Queryable, SqlValue } from '../store/types.ts';

/** The only SQL on usage_events. */

const COLS = 18;

/** Rows per INSERT (250 = 2×100 + 5×10): three statements, prepared once and reused. */
export const STATEMENT_ROWS = [100, 10, 1] as const;

const INSERT_SQL = new Map(
  STATEMENT_ROWS.map((n) => [
    n,
    `INSERT INTO usage_events (id, workspace_id, user_id, credential_id, source, provider, account_id, model, status,
       input_tokens, cached_tokens, output_tokens, reasoning_tokens, total_tokens, latency_ms, day, created_at, estimated)
     VALUES ${new Array(n).fill(`(${new Array(COLS).fill('?').join(', ')})`).join(', ')}`,
  ]),
);

/** Inserts `rows` rows (a STATEMENT_ROWS size): 18 params per row, column order. */
export async function insertUsageRows(q: Queryable, rows: (typeof STATEMENT_ROWS)[number], params: SqlValue[]): Promise<void> {
  await q.run(INSERT_SQL.get(rows)!, params);
}

export interface UsageRow {
  day: string;
  model: string;
  requests: number;
  input_tokens: number;
  cached_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  total_tokens: number;
}

export interface UsageFilter {
  workspaceId: string;
  userId?: string;
  credentialId?: string;
  fromDay: string;
  toDay: string;
}

/** Usage by day and model, with the token splits, for a workspace (optionally one member or key). */
export async function usageByDayAndModel(q: Queryable, f: UsageFilter): Promise<UsageRow[]> {
  const where = ['workspace_id = ?', 'day >= ?', 'day <= ?'];
  const params: string[] = [f.workspaceId, f.fromDay, f.toDay];
  if (f.userId) where.push('user_id = ?'), params.push(f.userId);
  if (f.credentialId) where.push('credential_id = ?'), params.push(f.credentialId);
  return q.all<UsageRow>(
    `SELECT day, model, COUNT(*) AS requests, SUM(input_tokens) AS input_tokens, SUM(cached_tokens) AS cached_tokens,
            SUM(output_tokens) AS output_tokens, SUM(reasoning_tokens) AS reasoning_tokens, SUM(total_tokens) AS total_tokens
       FROM usage_events WHERE ${where.join(' AND ')}
      GROUP BY day, model ORDER BY day, model`,
    params,
  );
}

/** Tokens used since the start of a day (inclusive), for monthly quotas. */
export async function tokensSince(q: Queryable, scope: { workspaceId: string; userId?: string; credentialId?: string }, fromDay: string): Promise<number> {
  const where = ['workspace_id = ?', 'day >= ?'];
  const params: string[] = [scope.workspaceId, fromDay];
  if (scope.userId) where.push('user_id = ?'), params.push(scope.userId);
  if (scope.credentialId) where.push('credential_id = ?'), params.push(scope.credentialId);
  const r = await q.one<{ t: number | null }>(`SELECT SUM(total_tokens) AS t FROM usage_events WHERE ${where.join(' AND ')}`, params);
  return Number(r?.t ?? 0);
}
