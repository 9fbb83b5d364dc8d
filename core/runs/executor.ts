import { AppError } from '../kernel/errors.ts';
import type { AgentVersion } from '../agents/types.ts';
import type { Resolved } from '../gateway/catalogue.ts';
import { history, type ConversationMessage } from './conversations.ts';
import type { RunDeps } from './deps.ts';
import { buildMessages, chatTools, type AssistantOutput } from './messages.ts';
import { addEvent, addEvents } from './repo/events.ts';
import { getRun, handBack } from './repo/runs.ts';
import { steps as loadSteps } from './repo/steps.ts';
import { callModel, iso, ledgerModelStep, writeEnd, type EndFields, type EndStatus, type LedgeredCall, type RunCtx } from './steps.ts';
import { ProviderRetry } from './provider-retry.ts';
import { completeInterrupted, pendingCalls, runTools } from './tool-steps.ts';
import { loadVersion } from './versions.ts';
import { EXECUTION_LIMIT_MS, Fenced, RunFailure, type RunRow } from './types.ts';
import { DEFAULT_MAX_STEPS } from '../agents/types.ts';

/**
 * Mutation-testing hook, NOT a feature: with NODE_ENV=test and SVC_TEST_DISABLE_LEDGER=1 the check
 * below that refuses to repeat a model/tool call found `started` without a result is skipped. The
 * fault test (test/fault/kill-workers.test.ts) turns it on to prove it detects repeated provider
 * calls; it is ignored in any other NODE_ENV, so an installation cannot disable the ledger.
 */
const ledgerDisabledForMutationTest = process.env.NODE_ENV === 'test' && process.env.SVC_TEST_DISABLE_LEDGER === '1';

/**
 * Runs (or resumes) the agent loop for a run this executor owns (`token` = its claim token):
 * model call, tool calls, model call … until the model answers without tools, a tool needs
 * approval, the step budget is spent, or the 15-minute limit passes. Shared by the in-request
 * path and the queue worker.
 *
 * Exactly-once rules: a model step is written `started` before the provider is called and
 * completed with its result after; a tool step likewise. A step found `started` without a result
 * (the previous executor died mid-call) is never repeated: the provider may have served and billed
 * it, or the tool may have had its side effect, so the run fails with a clear error instead —
 * except for tools that say what to record (run_code: the model is told it was interrupted).
 * Every write is fenced on the claim token, so an executor that lost the run stops.
 */
export type ExecOutcome = 'completed' | 'failed' | 'timed_out' | 'cancelled' | 'waiting_input' | 'handed_back' | 'retry_later' | 'not_owned';

export interface ExecOptions {
  /** Hard stop (the queue lease was lost): whatever is in flight is abandoned, writes are fenced. */
  signal?: AbortSignal;
  /** Graceful stop requested (worker shutting down): stop before the next step and requeue. */
  stopping?: () => boolean;
  /**
   * Queued path: an unexpected error (the store dropped the connection, a restart) is thrown to
   * the caller so the job is retried, instead of failing the run. The retry resumes from the
   * ledger, so nothing runs twice. In-request runs fail instead: nobody would retry them.
   */
  rethrowUnexpected?: boolean;
  /**
   * Queued path: a model call the provider refused before doing any work (noWork) ends this
   * execution with 'retry_later' and `sink.retryInMs` instead of failing the run, while the
   * 15-minute limit allows; the caller puts the job back after that delay (provider-retry.ts).
   */
  retryNoWork?: boolean;
  /** What the caller already read for this run (in-request path): not read again. `first`: the
   * run is fresh and its first model call's ledger row was committed with it (start.ts), so the
   * executor sends that call without reading the (empty) step list. */
  preloaded?: { run: RunRow; version: AgentVersion; target: Resolved; first?: { call: LedgeredCall; previous: ConversationMessage[] } };
  /** Receives the run's row as this executor wrote it when it ended or parked it (in-request path:
   * the answer is built from it instead of reading the row back). */
  sink?: { row?: RunRow; retryInMs?: number };
}

export async function executeRun(deps: RunDeps, runId: string, token: string, opts: ExecOptions = {}): Promise<ExecOutcome> {
  const run = opts.preloaded?.run.id === runId ? opts.preloaded.run : await getRun(deps.db, runId);
  if (!run || run.status !== 'running' || run.claim_token !== token) return 'not_owned';
  const since = Date.parse(run.running_since ?? run.started_at ?? run.created_at);
  const deadline = since + EXECUTION_LIMIT_MS;
  const ac = new AbortController();
  const timedOut = () => new RunFailure('execution_time_limit', 'The run exceeded its 15-minute execution limit.', 'timed_out');
  // Polling the (injectable) clock rather than one long timer: tests move time, and a suspended
  // laptop still stops a run that overran.
  const watcher = setInterval(() => {
    if (deps.clock.now() >= deadline) ac.abort(timedOut());
  }, deps.watchIntervalMs ?? 1000);
  watcher.unref();
  const onAbort = () => ac.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const t0 = performance.now();
  let final: ExecOutcome = 'failed';
  const ctx: RunCtx = { deps, run, token, sink: opts.sink, retryDeadline: opts.retryNoWork ? deadline : undefined };
  try {
    final = await loop(ctx, ac.signal, deadline, timedOut, opts.stopping ?? (() => false), opts.preloaded);
    return final;
  } catch (err) {
    if (err instanceof Fenced) return (final = 'not_owned');
    if (err instanceof ProviderRetry) {
      if (opts.sink) opts.sink.retryInMs = err.delayMs;
      return (final = 'retry_later');
    }
    if (err instanceof HandBack) {
      final = 'handed_back';
      await requeue(deps, run.id, token).catch((e: unknown) => {
        if (!(e instanceof Fenced)) throw e;
      });
      return final;
    }
    const reason = ac.signal.reason;
    if (opts.rethrowUnexpected && !(err instanceof RunFailure) && !(reason instanceof RunFailure)) {
      final = 'not_owned';
      throw err;
    }
    const failure =
      err instanceof RunFailure ? err
      : reason instanceof RunFailure ? reason
      : new RunFailure('internal_error', `The run stopped on an internal error: ${(err as Error)?.message ?? String(err)}`);
    if (!(err instanceof RunFailure) && !(reason instanceof RunFailure)) deps.log.error('run failed unexpectedly', { runId, error: err });
    // One line per failed run, with its cause (the error message is written for the run's reader:
    // provider errors in OpenAI's shape, never a key).
    else deps.log.warn('run failed', { runId, agentId: run.agent_id, status: failure.status, code: failure.code, cause: failure.message });
    final = failure.status;
    await end(ctx, failure.status, { error_message: failure.message, error_code: failure.code }).catch((e: unknown) => {
      if (!(e instanceof Fenced)) throw e;
      final = 'not_owned';
    });
    return final;
  } finally {
    clearInterval(watcher);
    opts.signal?.removeEventListener('abort', onAbort);
    if (final !== 'not_owned' && final !== 'handed_back' && final !== 'retry_later') {
      deps.metrics.finished.inc({ status: final });
      deps.metrics.duration.observe({ status: final }, (performance.now() - t0) / 1000);
    }
  }
}

class HandBack extends Error {}

/** Back to the queue, unowned, between steps: the next claim resumes from the ledger. */
async function requeue(deps: RunDeps, runId: string, token: string): Promise<void> {
  const now = iso(deps.clock.now());
  const r = await handBack(deps.db, runId, token);
  if (r.changes !== 1) throw new Fenced(runId);
  await addEvent(deps.db, runId, 'run.handed_back', { reason: 'worker stopping' }, now);
}

async function end(ctx: RunCtx, status: EndStatus, f: EndFields): Promise<void> {
  const now = iso(ctx.deps.clock.now());
  const row = await ctx.deps.db.tx((q) => writeEnd(q, ctx, status, f, now));
  if (ctx.sink) ctx.sink.row = row;
}

async function loop(ctx: RunCtx, signal: AbortSignal, deadline: number, timedOut: () => RunFailure, stopping: () => boolean, preloaded: ExecOptions['preloaded']): Promise<ExecOutcome> {
  const { deps, run } = ctx;
  const version = preloaded?.version ?? (await loadVersion(deps.db, run.agent_id, run.agent_version));
  if (!version) throw new RunFailure('agent_version_missing', `Version ${run.agent_version} of the agent no longer exists.`);
  let target: Resolved;
  try {
    target = preloaded?.target ?? (await deps.resolve(version));
  } catch (err) {
    // Only the target's own verdicts (account or model gone, catalogue unavailable) end the run.
    // A store or network fault here is like any other: rethrown, so a queued run is retried (no
    // provider call has been made yet) instead of failing as if the agent were misconfigured.
    if (!(err instanceof AppError)) throw err;
    throw new RunFailure(err.code, err.message);
  }
  const first = preloaded?.first;
  const previous = first ? first.previous : run.conversation_id ? await history(deps.db, run.conversation_id, run.id) : [];
  const tools = chatTools(version, deps.tool);
  const maxSteps = version.settings.maxSteps ?? DEFAULT_MAX_STEPS;
  // Between steps: the answer may end the run in the step's own transaction only when the loop
  // would not stop first (limit passed, stop requested, aborted), so every outcome stays as before.
  const mayEnd = () => deps.clock.now() < deadline && !stopping() && !signal.aborted;
  // A fresh in-request run has no steps but the ledger row its start wrote: nothing to read back.
  let all = first ? [] : await loadSteps(deps.db, run.id);

  for (const [i, s] of all.entries()) {
    if (s.status !== 'started' || ledgerDisabledForMutationTest) continue;
    const done = s.kind === 'tool' ? await completeInterrupted(ctx, version, s) : undefined;
    if (done) {
      all[i] = done;
      continue;
    }
    throw s.kind === 'model'
      ? new RunFailure('ambiguous_provider_call', `Model call ${s.seq} was sent but its result was never recorded (the executor stopped mid-call). It is not repeated, because the provider may already have served and charged it.`)
      : new RunFailure('ambiguous_tool_call', `Tool call ${s.seq} (${s.name}) started but its result was never recorded. It is not repeated, because it may already have had its effect.`);
  }
  if (first) {
    // Its ledger row was committed with the run, before this call (start.ts).
    const r = await callModel(ctx, version, target, tools, first.call, signal, mayEnd);
    if (r.ended) return 'completed';
    all = [r.row];
  }

  for (;;) {
    if (deps.clock.now() >= deadline) throw timedOut();
    if (stopping()) throw new HandBack();
    if (signal.aborted) throw signal.reason instanceof RunFailure ? signal.reason : new RunFailure('aborted', 'The run was interrupted.');
    const lastModel = [...all].reverse().find((s) => s.kind === 'model');
    const pending = lastModel?.status === 'completed' ? pendingCalls(lastModel, all) : [];

    if (pending.length > 0) {
      // Tool calls count toward maxSteps too: fail before running any the budget cannot hold,
      // rather than letting one side effect through past the limit.
      if (all.length + pending.filter((p) => !p.step).length > maxSteps) throw budgetSpent(maxSteps);
      const waiting = await runTools(ctx, version, pending, all, signal);
      if (waiting) return 'waiting_input';
      all = await loadSteps(deps.db, run.id);
      continue;
    }
    if (lastModel?.status === 'completed') {
      const out = JSON.parse(lastModel.output!) as AssistantOutput;
      if (!out.tool_calls?.length) {
        await end(ctx, 'completed', { output_text: out.content ?? '' });
        return 'completed';
      }
    }
    if (all.length >= maxSteps) throw budgetSpent(maxSteps);
    const messages = buildMessages(version, previous, run.input_text, all);
    const startedAt = deps.clock.now();
    // The ledger row goes in BEFORE the provider is called.
    const call = await deps.db.tx(async (q) => {
      const l = await ledgerModelStep(q, ctx, target, messages, all.length + 1, startedAt);
      await addEvents(q, run.id, [l.event], iso(startedAt));
      return l.call;
    });
    const r = await callModel(ctx, version, target, tools, call, signal, mayEnd);
    if (r.ended) return 'completed';
    // The row as just written: the step list is not read back.
    all = [...all, r.row];
  }
}

const budgetSpent = (maxSteps: number) =>
  new RunFailure('max_steps_exceeded', `The run used its ${maxSteps} steps without a final answer. Raise settings.maxSteps on the agent or simplify the task.`);

