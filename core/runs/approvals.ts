import { AppError, notFound } from '../kernel/errors.ts';
import { signDecision } from './approval-signature.ts';
import type { RunDeps } from './deps.ts';
import { approvalOfRun, decidePending } from './repo/approvals.ts';
import { addEvent } from './repo/events.ts';
import { callerRunDurable, cancelRejected, requeueApproved, resumeApproved } from './repo/runs.ts';
import { rejectWaitingStep } from './repo/steps.ts';
import { mayRun, newClaimToken } from './start.ts';
import type { Queryable } from '../store/types.ts';

export interface DecisionInput {
  agentId: string;
  runId: string;
  approvalId: string;
  userId: string;
  decision: 'approve' | 'reject';
}

/** Resumed here under a fresh token, or re-queued for a worker (durable runs). */
export type DecisionOutcome = { resumed: true; token: string } | { resumed: false; queued?: true };

/** Re-queues an approved durable run inside the decision's transaction. */
export type Requeue = (q: Queryable, runId: string, approvalId: string) => Promise<void>;

/** Once, by a caller who may still run the agent: one conditional UPDATE, so a second
 * decision gets 409. Signed; the executor verifies it before the tool runs. */
export async function decideApproval(deps: Pick<RunDeps, 'db' | 'clock' | 'approvalKey'>, d: DecisionInput, requeue?: Requeue): Promise<DecisionOutcome> {
  const run = await callerRunDurable(deps.db, d.runId, d.agentId, d.userId);
  if (!run) throw notFound('Run'); // another user's run is invisible
  const approval = await approvalOfRun(deps.db, d.approvalId, d.runId);
  if (!approval) throw notFound('Approval');
  const decision = d.decision === 'approve' ? 'approved' : 'rejected';
  const now = new Date(deps.clock.now()).toISOString();
  const signature = signDecision(deps.approvalKey, { approvalId: approval.id, runId: d.runId, stepSeq: Number(approval.step_seq), decision, decidedBy: d.userId, decidedAt: now });
  return deps.db.tx(async (q) => {
    // Rights as they are now, not at the start, inside the deciding transaction.
    await mayRun(q, d.agentId, d.userId);
    const flipped = await decidePending(q, approval.id, { decision, decidedBy: d.userId, decidedAt: now, signature });
    if (flipped.changes !== 1) throw new AppError('approval_decided', 'This approval was already decided; a decision is single-use.');
    await addEvent(q, d.runId, `approval.${decision}`, { approvalId: approval.id }, now);
    if (decision === 'approved' && requeue && Number(run.durable) === 1) {
      const r = await requeueApproved(q, d.runId, approval.id);
      if (r.changes !== 1) throw new AppError('run_not_waiting', 'The run is no longer waiting for this approval.');
      await requeue(q, d.runId, approval.id);
      await addEvent(q, d.runId, 'run.queued', { approvalId: approval.id }, now);
      return { resumed: false as const, queued: true as const };
    }
    if (decision === 'approved') {
      const token = newClaimToken();
      const r = await resumeApproved(q, d.runId, approval.id, token, now);
      if (r.changes !== 1) throw new AppError('run_not_waiting', 'The run is no longer waiting for this approval.');
      await addEvent(q, d.runId, 'run.resumed', { approvalId: approval.id }, now);
      return { resumed: true as const, token };
    }
    await rejectWaitingStep(q, d.runId, approval.step_seq, 'error: the user rejected this tool call', now);
    const r = await cancelRejected(q, d.runId, approval.id, now);
    if (r.changes !== 1) throw new AppError('run_not_waiting', 'The run is no longer waiting for this approval.');
    await addEvent(q, d.runId, 'run.cancelled', { reason: 'approval_rejected' }, now);
    return { resumed: false as const };
  });
}
