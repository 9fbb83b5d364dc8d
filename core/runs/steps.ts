import type { AgentVersion } from '../agents/types.ts';
import type { Resolved } from '../gateway/catalogue.ts';
import { splitsOf, type ChatMessage, type ChatTool } from '../wire/openai.ts';
import { withSafeRetry } from '../providers/retry.ts';
import { UpstreamError } from '../providers/types.ts';
import type { Queryable } from '../store/types.ts';
import { appendMessage } from './conversations.ts';
import { scheduleRetry } from './provider-retry.ts';
import type { RunDeps } from './deps.ts';
import type { AssistantOutput } from './messages.ts';
import { addEvent, addEvents, type NewEvent } from './repo/events.ts';
import { finishRun } from './repo/runs.ts';
import { insertStep, updateStep } from './repo/steps.ts';
import { RunFailure, type RunRow, type StepRow } from './types.ts';

export const iso = (ms: number) => new Date(ms).toISOString();

/** What one executor works with while it owns a run (`token` = its claim token). */
export interface RunCtx {
  deps: RunDeps;
  run: RunRow;
  token: string;
  /** The final row after commit, so no read-back. */
  sink?: { row?: RunRow } | undefined;
  /** Queued runs retry `noWork` calls until then; unset: they fail. */
  retryDeadline?: number | undefined;
}

export type EndStatus = 'completed' | 'failed' | 'timed_out' | 'cancelled';
export interface EndFields {
  output_text?: string | null;
  error_message?: string;
  error_code?: string;
}

/** Status, event, conversation message and onEnd in the caller's transaction; returns the row. */
export async function writeEnd(q: Queryable, ctx: RunCtx, status: EndStatus, f: EndFields, now: string, before: readonly NewEvent[] = []): Promise<RunRow> {
  const { deps, run, token } = ctx;
  await finishRun(q, run.id, token, status, { ...f, finished_at: now });
  await addEvents(q, run.id, [...before, [`run.${status}`, f.error_code ? { errorCode: f.error_code, message: f.error_message } : {}]], now);
  if (status === 'completed' && run.conversation_id) {
    await appendMessage(q, run.conversation_id, { role: 'assistant', content: f.output_text ?? '', runId: run.id, nowIso: now });
  }
  await deps.onEnd?.(q, run, status);
  return { ...run, status, output_text: f.output_text ?? run.output_text, error_message: f.error_message ?? run.error_message, error_code: f.error_code ?? run.error_code, finished_at: now };
}

/** A model call whose ledger row is written (`started`), not yet sent. */
export interface LedgeredCall {
  seq: number;
  messages: ChatMessage[];
  startedAt: number;
  row: StepRow;
}

/** MUST commit before the call: a `started` row is never called again. Returns its event. */
export async function ledgerModelStep(q: Queryable, ctx: RunCtx, target: Resolved, messages: ChatMessage[], seq: number, startedAt: number): Promise<{ call: LedgeredCall; event: NewEvent }> {
  const row: StepRow = {
    run_id: ctx.run.id, seq, kind: 'model', status: 'started', name: target.model.id, call_id: null, input: JSON.stringify({ messages: messages.length }),
    output: null, error: null, provider: target.model.provider, model: target.model.id,
    input_tokens: 0, cached_tokens: 0, output_tokens: 0, reasoning_tokens: 0, total_tokens: 0, started_at: iso(startedAt), finished_at: null,
  };
  await insertStep(q, ctx.token, row);
  return { call: { seq, messages, startedAt, row }, event: ['step.started', { seq, kind: 'model', model: target.model.id }] };
}

/** A final answer ends the run in the step's own transaction when `mayEnd()`. */
export async function callModel(
  ctx: RunCtx, version: AgentVersion, target: Resolved, tools: ChatTool[], call: LedgeredCall, signal: AbortSignal, mayEnd: () => boolean,
): Promise<{ row: StepRow; ended: boolean }> {
  const { deps, run, token } = ctx;
  const { seq, startedAt } = call;
  deps.metrics.steps.inc({ kind: 'model' });
  const s = version.settings;
  const req = {
    model: target.model.upstream,
    messages: call.messages,
    ...(tools.length ? { tools } : {}),
    ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
    ...(s.maxOutputTokens !== undefined ? { max_completion_tokens: s.maxOutputTokens } : {}),
  };
  let result;
  try {
    // Only `noWork` retries; same ledger row.
    result = await withSafeRetry(() => deps.engine.chat(target.target, req, signal), { signal });
  } catch (err) {
    const retry = signal.aborted ? undefined : await scheduleRetry(deps, run, token, seq, err, ctx.retryDeadline);
    if (retry) {
      recordUsage(deps, run, target, 0, startedAt, (err as UpstreamError).status);
      throw retry;
    }
    const msg = err instanceof UpstreamError ? err.message : (err as Error).message;
    await deps.db.tx(async (q) => {
      await updateStep(q, token, run.id, seq, 'started', { status: 'failed', error: msg, finished_at: iso(deps.clock.now()) });
      await addEvent(q, run.id, 'step.failed', { seq, kind: 'model', error: msg }, iso(deps.clock.now()));
    });
    recordUsage(deps, run, target, 0, startedAt, err instanceof UpstreamError ? err.status : 500);
    if (signal.aborted && signal.reason instanceof RunFailure) throw signal.reason;
    throw new RunFailure('model_call_failed', `The model call failed: ${msg}`);
  }
  const msg = result.completion.choices[0]?.message;
  const output: AssistantOutput = { content: msg?.content ?? null, ...(msg?.tool_calls?.length ? { tool_calls: msg.tool_calls } : {}) };
  const u = splitsOf(result.completion.usage);
  const now = iso(deps.clock.now());
  const done = {
    status: 'completed' as const, output: JSON.stringify(output), finished_at: now,
    input_tokens: u.inputTokens, cached_tokens: u.cachedTokens, output_tokens: u.outputTokens, reasoning_tokens: u.reasoningTokens, total_tokens: u.totalTokens,
  };
  const event: NewEvent = ['step.completed', { seq, kind: 'model', toolCalls: output.tool_calls?.length ?? 0, totalTokens: u.totalTokens }];
  const ends = !output.tool_calls?.length && mayEnd();
  const ended = await deps.db.tx(async (q) => {
    await updateStep(q, token, run.id, seq, 'started', done);
    if (ends) return writeEnd(q, ctx, 'completed', { output_text: output.content ?? '' }, now, [event]);
    await addEvents(q, run.id, [event], now);
    return undefined;
  });
  if (ended && ctx.sink) ctx.sink.row = ended;
  recordUsage(deps, run, target, u, startedAt, 200);
  return { row: { ...call.row, ...done }, ended: ends };
}

export function recordUsage(deps: RunDeps, run: RunRow, target: Resolved, u: ReturnType<typeof splitsOf> | 0, startedAt: number, status: number): void {
  const z = { inputTokens: 0, cachedTokens: 0, outputTokens: 0, reasoningTokens: 0, totalTokens: 0 };
  deps.usage.record({
    ...(u === 0 ? z : u),
    workspaceId: run.workspace_id, userId: run.user_id, credentialId: null, source: 'agent_run',
    provider: target.model.provider, accountId: target.model.accountId, model: target.model.id, status,
    latencyMs: deps.clock.now() - startedAt, at: startedAt,
  });
}
