import type { Queryable, RunResult } from '../../store/types.ts';

// The approvals table: one row per tool call that waits for its owner's decision.

export interface ApprovalDecisionRow {
  id: string;
  status: string;
  decided_by: string | null;
  decided_at: string | null;
  signature: string | null;
}

export async function insertApproval(q: Queryable, a: { id: string; runId: string; stepSeq: number; toolName: string; arguments: string; createdAt: string }): Promise<void> {
  await q.run('INSERT INTO approvals (id, run_id, step_seq, tool_name, arguments, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [a.id, a.runId, a.stepSeq, a.toolName, a.arguments, 'pending', a.createdAt]);
}

/** The newest approval of a step, with its decision (the executor verifies its signature). */
export async function latestApproval(q: Queryable, runId: string, stepSeq: number): Promise<ApprovalDecisionRow | undefined> {
  return q.one<ApprovalDecisionRow>(
    'SELECT id, status, decided_by, decided_at, signature FROM approvals WHERE run_id = ? AND step_seq = ? ORDER BY created_at DESC LIMIT 1',
    [runId, stepSeq],
  );
}

export async function approvalOfRun(q: Queryable, approvalId: string, runId: string): Promise<{ id: string; step_seq: number; status: string } | undefined> {
  return q.one<{ id: string; step_seq: number; status: string }>('SELECT id, step_seq, status FROM approvals WHERE id = ? AND run_id = ?', [approvalId, runId]);
}

/** Flips a pending approval to its decision; no change when it was no longer pending. */
export async function decidePending(q: Queryable, id: string, d: { decision: 'approved' | 'rejected'; decidedBy: string; decidedAt: string; signature: string }): Promise<RunResult> {
  return q.run(
    `UPDATE approvals SET status = ?, decided_by = ?, decided_at = ?, signature = ? WHERE id = ? AND status = 'pending'`,
    [d.decision, d.decidedBy, d.decidedAt, d.signature, id],
  );
}

export async function countPendingApprovals(q: Queryable): Promise<number> {
  return Number((await q.one<{ n: number }>("SELECT COUNT(*) AS n FROM approvals WHERE status = 'pending'"))?.n ?? 0);
}
