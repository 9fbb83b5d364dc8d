import { runnableVersion } from '../agents/access.ts';
import { APP_EVENT, runApps, type RunApp } from '../apps/service.ts';
import { notFound } from '../kernel/errors.ts';
import type { Queryable } from '../store/types.ts';
import type { RunDeps } from './deps.ts';
import { addEvent, eventsForRead } from './repo/events.ts';
import { anyRunningSince, callerRun, closeAbandoned, getRun, recentRuns, runsPage, type RunListRow } from './repo/runs.ts';
import { modelUsageByRun, stepsForRead } from './repo/steps.ts';
import { ABANDON_AFTER_MS, type EventRow, type RunRow, type StepRow } from './types.ts';

export const parse = (s: string | null): unknown => {
  if (s === null) return null;
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
};

/** SPEC: running after 20 minutes means abandoned; one conditional UPDATE, so only one
 * of the read and a finishing executor wins. */
export async function closeIfAbandoned(deps: Pick<RunDeps, 'db' | 'clock'>, where: { runId?: string; agentId?: string; userId?: string }): Promise<void> {
  const now = deps.clock.now();
  const edge = new Date(now - ABANDON_AFTER_MS).toISOString();
  const nowIso = new Date(now).toISOString();
  const w = where.runId ? { runId: where.runId } : { agentId: where.agentId!, userId: where.userId! };
  // Read first: take the write lock only when needed.
  if (!(await anyRunningSince(deps.db, w, edge))) return;
  const closed = await closeAbandoned(deps.db, w, nowIso, edge);
  for (const r of closed) await addEvent(deps.db, r.id, 'run.timed_out', { errorCode: 'run_abandoned' }, nowIso);
}

export function runView(r: RunRow) {
  return {
    runId: r.id,
    agentId: r.agent_id,
    agentVersion: r.agent_version,
    conversationId: r.conversation_id,
    status: r.status,
    inputText: r.input_text,
    outputText: r.output_text,
    error_message: r.error_message,
    errorCode: r.error_code,
    approvalId: r.approval_id,
    durable: r.durable === 1,
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  };
}

/** The columns a read shows (not run_id: the caller named the run). */
export type ReadStep = Omit<StepRow, 'run_id'>;
export type ReadEvent = Omit<EventRow, 'run_id'>;

/** Closed first if abandoned; 404 unless the caller's. */
export async function loadRun(deps: Pick<RunDeps, 'db' | 'clock'>, agentId: string, runId: string, userId: string): Promise<{ run: RunRow; steps: ReadStep[]; events: ReadEvent[] }> {
  let run = await callerRun(deps.db, runId, agentId, userId);
  if (!run) throw notFound('Run');
  // The write only when the row says it could apply.
  if (run.status === 'running' && run.running_since !== null && Date.parse(run.running_since) < deps.clock.now() - ABANDON_AFTER_MS) {
    await closeIfAbandoned(deps, { runId });
    run = (await getRun(deps.db, runId))!;
  }
  const [steps, events] = await Promise.all([stepsForRead(deps.db, runId), eventsForRead(deps.db, runId)]);
  return { run, steps, events };
}

export function usageTotals(s: readonly ReadStep[]) {
  const model = s.filter((x) => x.kind === 'model');
  const sum = (k: 'input_tokens' | 'cached_tokens' | 'output_tokens' | 'reasoning_tokens' | 'total_tokens') => model.reduce((a, x) => a + Number(x[k]), 0);
  const last = model.at(-1);
  return {
    provider: last?.provider ?? null,
    model: last?.model ?? null,
    inputTokens: sum('input_tokens'),
    cachedTokens: sum('cached_tokens'),
    outputTokens: sum('output_tokens'),
    reasoningTokens: sum('reasoning_tokens'),
    totalTokens: sum('total_tokens'),
    modelCalls: model.length,
  };
}

/** The API answers readRunJson, the same document unparsed. */
export async function readRun(deps: Pick<RunDeps, 'db' | 'clock'>, agentId: string, runId: string, userId: string) {
  const { run, steps: s, events: e } = await loadRun(deps, agentId, runId, userId);
  return {
    run: runView(run),
    steps: s.map((x) => ({
      seq: x.seq,
      kind: x.kind,
      status: x.status,
      name: x.name,
      callId: x.call_id,
      input: parse(x.input),
      output: x.kind === 'model' ? parse(x.output) : x.output,
      error: x.error,
      provider: x.provider,
      model: x.model,
      usage: { inputTokens: Number(x.input_tokens), cachedTokens: Number(x.cached_tokens), outputTokens: Number(x.output_tokens), reasoningTokens: Number(x.reasoning_tokens), totalTokens: Number(x.total_tokens) },
      startedAt: x.started_at,
      finishedAt: x.finished_at,
    })),
    events: e.map((x) => ({ seq: x.seq, kind: x.kind, data: parse(x.data), createdAt: x.created_at })),
    usage: usageTotals(s),
    apps: await appsOf(deps, runId, e),
  };
}

/** Looked up only when an event says the run made an app. */
export async function appsOf(deps: Pick<RunDeps, 'db'>, runId: string, events: readonly ReadEvent[]): Promise<RunApp[]> {
  if (!events.some((x) => x.kind === APP_EVENT)) return [];
  return (await runApps(deps.db, runId)).map(({ workspaceId: _, ...a }) => a);
}

/** 25 newest, with usage; 404 wherever a start would be. */
export async function listRuns(deps: Pick<RunDeps, 'db' | 'clock'>, agentId: string, userId: string) {
  if (!(await runnableVersion(deps.db, agentId, userId))) throw notFound('Agent');
  await closeIfAbandoned(deps, { agentId, userId });
  const runs = await recentRuns(deps.db, agentId, userId);
  if (runs.length === 0) return [];
  const sums = await modelUsageByRun(deps.db, runs.map((r) => r.id));
  const byRun = new Map(sums.map((x) => [x.run_id, x]));
  return runs.map((r) => {
    const u = byRun.get(r.id);
    return {
      ...runView(r),
      usage: { inputTokens: Number(u?.input_tokens ?? 0), cachedTokens: Number(u?.cached_tokens ?? 0), outputTokens: Number(u?.output_tokens ?? 0), reasoningTokens: Number(u?.reasoning_tokens ?? 0), totalTokens: Number(u?.total_tokens ?? 0), modelCalls: Number(u?.model_calls ?? 0) },
    };
  });
}

/** Keyset pages (`<created_at>~<id>`): one index range at any depth. */
export async function listRunsPage(
  q: Queryable,
  f: { userId: string; workspaceId: string; limit: number; before?: string | undefined; agentId?: string | undefined },
): Promise<{ rows: RunListRow[]; next: string | undefined }> {
  const cursor = f.before ? /^(\d{4}-\d{2}-\d{2}T[\d:.]+Z)~([a-z]+_[0-9a-z]+)$/.exec(f.before) : null;
  const rows = await runsPage(q, { userId: f.userId, workspaceId: f.workspaceId, agentId: f.agentId, cursor: cursor ? { createdAt: cursor[1]!, id: cursor[2]! } : undefined, limit: f.limit + 1 });
  const more = rows.length > f.limit;
  if (more) rows.pop();
  const last = rows.at(-1);
  return { rows, next: more && last ? `${last.created_at}~${last.id}` : undefined };
}
