import type { Queryable } from '../store/types.ts';

/** The only SQL on gateway_limits (user_id '' is the workspace's row). */

export interface LimitsRow {
  requests_per_minute: number | null;
  tokens_per_minute: number | null;
  tokens_per_month: number | null;
}

export async function limitsRow(q: Queryable, workspaceId: string, userId: string): Promise<LimitsRow | undefined> {
  return q.one<LimitsRow>(
    'SELECT requests_per_minute, tokens_per_minute, tokens_per_month FROM gateway_limits WHERE workspace_id = ? AND user_id = ?',
    [workspaceId, userId],
  );
}

export async function upsertLimits(q: Queryable, workspaceId: string, userId: string, l: LimitsRow, at: string): Promise<void> {
  await q.run(
    `INSERT INTO gateway_limits (workspace_id, user_id, requests_per_minute, tokens_per_minute, tokens_per_month, updated_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (workspace_id, user_id) DO UPDATE SET requests_per_minute = excluded.requests_per_minute,
         tokens_per_minute = excluded.tokens_per_minute, tokens_per_month = excluded.tokens_per_month, updated_at = excluded.updated_at`,
    [workspaceId, userId, l.requests_per_minute, l.tokens_per_minute, l.tokens_per_month, at],
  );
}
