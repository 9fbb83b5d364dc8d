import type { Queryable } from '../store/types.ts';

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
