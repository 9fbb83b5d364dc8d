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

/** Test-only (test/fault/kill-workers.test.ts) mutation hook; other NODE_ENVs ignore it,
 * so an installation cannot disable the ledger. */
const ledgerDisabledForMutationTest = process.env.NODE_ENV === 'test' && process.env.SVC_TEST_DISABLE_LEDGER === '1';

/** The agent loop, in-request and queued. A step found `started` is never repeated
 * (it may be billed); writes are fenced on the token (docs/architecture.md). */
export type ExecOutcome = 'completed' | 'failed' | 'timed_out' | 'cancelled' | 'waiting_input' | 'handed_back' | 'retry_later' | 'not_owned';

export interface ExecOptions {
  /** Lease lost: abandon what is in flight. */
  signal?: AbortSignal;
  /** Worker shutdown: requeue before the next step. */
  stopping?: () => boolean;
  /** Queued: throw unexpected errors so the job retries; in-request nobody would. */
  rethrowUnexpected?: boolean;
  /** Queued: a `noWork` refusal means 'retry_later', within the limit (provider-retry.ts). */
  retryNoWork?: boolean;
  /** Already read in-request; `first` is a fresh run's committed first call (start.ts). */
  preloaded?: { run: RunRow; version: AgentVersion; target: Resolved; first?: { call: LedgeredCall; previous: ConversationMessage[] } };
  /** Gets the final row, so the answer needs no read-back. */
  sink?: { row?: RunRow; retryInMs?: number };
}

export async function executeRun(deps: RunDeps, runId: string, token: string, opts: ExecOptions = {}): Promise<ExecOutcome> {
  const run = opts.preloaded?.run.id === runId ? opts.preloaded.run : await getRun(deps.db, runId);
  if (!run || run.status !== 'running' || run.claim_token !== token) return 'not_owned';
  const since = Date.parse(run.running_since ?? run.started_at ?? run.created_at);
  const deadline = since + EXECUTION_LIMIT_MS;
  const ac = new AbortController();
  const timedOut = () => new RunFailure('execution_time_limit', 'The run exceeded its 15-minute execution limit.', 'timed_out');
  // Polled: tests move time, and a suspended laptop still stops overruns.
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
    // The message is written for readers, never holds a key.
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
    // Only the target's verdicts end the run; faults rethrow so a queued run retries.
    if (!(err instanceof AppError)) throw err;
    throw new RunFailure(err.code, err.message);
  }
  const first = preloaded?.first;
  const previous = first ? first.previous : run.conversation_id ? await history(deps.db, run.conversation_id, run.id) : [];
  const tools = chatTools(version, deps.tool);
  const maxSteps = version.settings.maxSteps ?? DEFAULT_MAX_STEPS;
  // End in the step's transaction only if the loop would not stop first.
  const mayEnd = () => deps.clock.now() < deadline && !stopping() && !signal.aborted;
  // A fresh run's only step is the ledger row its start wrote.
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
      // Fail before any side effect the step budget cannot hold.
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

