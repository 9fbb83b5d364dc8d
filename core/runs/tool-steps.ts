import { openToolConfig } from '../agents/tool-secrets.ts';
import type { AgentVersion } from '../agents/types.ts';
import { newId } from '../kernel/ids.ts';
import { verifyDecision } from './approval-signature.ts';
import type { AssistantOutput } from './messages.ts';
import { insertApproval, latestApproval } from './repo/approvals.ts';
import { addEvent } from './repo/events.ts';
import { finishRun } from './repo/runs.ts';
import { insertStep, updateStep } from './repo/steps.ts';
import { iso, type RunCtx } from './steps.ts';
import { RunFailure, type StepRow } from './types.ts';

/** Calls without a completed result, in the model's order. */
export function pendingCalls(model: StepRow, all: StepRow[]): { call: NonNullable<AssistantOutput['tool_calls']>[number]; step: StepRow | undefined }[] {
  const out = JSON.parse(model.output!) as AssistantOutput;
  const byCall = new Map(all.filter((s) => s.kind === 'tool' && s.seq > model.seq).map((s) => [s.call_id, s]));
  return (out.tool_calls ?? []).map((call) => ({ call, step: byCall.get(call.id) })).filter((p) => !p.step || p.step.status === 'waiting_approval');
}

/** Records the tool's own note for an interrupted step; undefined: the run fails as ambiguous. */
export async function completeInterrupted(ctx: RunCtx, version: AgentVersion, step: StepRow): Promise<StepRow | undefined> {
  const tool = version.tools.find((t) => t.name === step.name);
  const note = tool && ctx.deps.tool(tool.type)?.interrupted?.();
  if (note === undefined) return undefined;
  const done = iso(ctx.deps.clock.now());
  await ctx.deps.db.tx(async (q) => {
    await updateStep(q, ctx.token, ctx.run.id, step.seq, 'started', { status: 'completed', output: note, finished_at: done });
    await addEvent(q, ctx.run.id, 'step.completed', { seq: step.seq, kind: 'tool', tool: step.name, interrupted: true }, done);
  });
  return { ...step, status: 'completed', output: note, finished_at: done };
}

/** Runs pending tool calls in order; returns true when the run stopped to wait for an approval. */
export async function runTools(ctx: RunCtx, version: AgentVersion, pending: ReturnType<typeof pendingCalls>, all: StepRow[], signal: AbortSignal): Promise<boolean> {
  const { deps, run, token } = ctx;
  let seq = all.length;
  for (const { call, step } of pending) {
    const tool = version.tools.find((t) => t.name === call.function.name);
    const def = tool && deps.tool(tool.type);
    let stepSeq: number;
    if (step) {
      // Continue only on a verified approval.
      const a = await latestApproval(deps.db, run.id, step.seq);
      const ok = a?.status === 'approved' && verifyDecision(deps.approvalKey, { approvalId: a.id, runId: run.id, stepSeq: step.seq, decision: 'approved', decidedBy: a.decided_by ?? '', decidedAt: a.decided_at ?? '' }, a.signature);
      if (!ok) throw new RunFailure('approval_invalid', 'The tool call was resumed without a valid approval decision.');
      await updateStep(deps.db, token, run.id, step.seq, 'waiting_approval', { status: 'started' });
      stepSeq = step.seq;
    } else {
      stepSeq = ++seq;
      const now = iso(deps.clock.now());
      if (tool?.approval === 'always' && def) {
        const approvalId = newId('apr');
        await deps.db.tx(async (q) => {
          await insertStep(q, token, { run_id: run.id, seq: stepSeq, kind: 'tool', status: 'waiting_approval', name: call.function.name, call_id: call.id, input: call.function.arguments, provider: null, model: null, started_at: now });
          await insertApproval(q, { id: approvalId, runId: run.id, stepSeq, toolName: call.function.name, arguments: call.function.arguments, createdAt: now });
          await finishRun(q, run.id, token, 'waiting_input', { approval_id: approvalId });
          await addEvent(q, run.id, 'approval.requested', { approvalId, seq: stepSeq, tool: call.function.name }, now);
          await addEvent(q, run.id, 'run.waiting_input', { approvalId }, now);
        });
        if (ctx.sink) ctx.sink.row = { ...run, status: 'waiting_input', approval_id: approvalId };
        return true;
      }
      await insertStep(deps.db, token, { run_id: run.id, seq: stepSeq, kind: 'tool', status: 'started', name: call.function.name, call_id: call.id, input: call.function.arguments, provider: null, model: null, started_at: now });
    }
    deps.metrics.steps.inc({ kind: 'tool' });
    let output: string;
    if (!tool || !def) output = `error: the agent has no tool named "${call.function.name}"`;
    else {
      let args: unknown;
      try {
        args = JSON.parse(call.function.arguments || '{}');
        output = await def.execute(args, openToolConfig(deps.vault, version.agentId, tool.config), {
          signal,
          limits: deps.toolLimits,
          sandbox: deps.sandbox,
          log: deps.log,
          run: { runId: run.id, workspaceId: run.workspace_id, userId: run.user_id, claimToken: token, db: deps.db, clock: deps.clock },
        });
      } catch (err) {
        if (signal.aborted) throw signal.reason instanceof RunFailure ? signal.reason : err;
        output = `error: ${(err as Error).message}`;
      }
    }
    const done = iso(deps.clock.now());
    await deps.db.tx(async (q) => {
      await updateStep(q, token, run.id, stepSeq, 'started', { status: 'completed', output, finished_at: done });
      await addEvent(q, run.id, 'step.completed', { seq: stepSeq, kind: 'tool', tool: call.function.name }, done);
    });
  }
  return false;
}
