import type { AgentVersion } from '../agents/types.ts';
import { newId } from '../kernel/ids.ts';
import { SlidingWindow } from '../quota/window.ts';
import type { RunDeps } from './deps.ts';
import { executeRun } from './executor.ts';
import { addEvent } from './repo/events.ts';
import { insertNewRun, type StartInput } from './start.ts';
import type { RunRow } from './types.ts';
import { StoreBusy } from '../store/types.ts';
import { enqueue } from '../queue/repo.ts';
import { runStartsExceeded, type RunStartLimiter } from './ratelimit.ts';
import type { QueueMetrics } from '../queue/metrics.ts';

/** SPEC: the queue store gets five seconds to take the job before the web process runs it. */
export const FALLBACK_AFTER_MS = 5000;

export interface QueuedStartDeps {
  runs: RunDeps;
  metrics: QueueMetrics;
  /** Per-user allowance while the store cannot be written. */
  fallbackLimit: number;
}

/** Run and job in one transaction (202); if the store stalls 5 s, runs here, not durable. */
export function queuedStarter(d: QueuedStartDeps) {
  const windows = new Map<string, SlidingWindow>();
  const fallbackRate = (userId: string) => {
    const now = d.runs.clock.now();
    let w = windows.get(userId);
    if (!w) windows.set(userId, (w = new SlidingWindow()));
    if (w.total(now) >= d.fallbackLimit) {
      throw runStartsExceeded(d.fallbackLimit, Math.max(1, Math.ceil(w.msUntilAtMost(now, d.fallbackLimit - 1) / 1000)));
    }
    w.add(now);
  };

  return {
    /** One transaction for the hit, run and job: one wait. Returns the rate-limit headers. */
    async start(version: AgentVersion, input: StartInput, limiter: RunStartLimiter, workerId?: string): Promise<{ run: RunRow; headers: Record<string, string> }> {
      let headers: Record<string, string> = {};
      try {
        const run = await insertNewRun(d.runs, version, input, { status: 'queued', durable: true, ...(workerId ? { workerId } : {}) }, async (q, r) => {
          headers = (await limiter.takeIn(q, input.userId)).headers;
          await enqueue(q, { kind: 'run', runId: r.id }, d.runs.clock.now());
        });
        d.runs.metrics.started.inc({ mode: 'queued' });
        return { run, headers };
      } catch (err) {
        if (!(err instanceof StoreBusy)) throw err;
        fallbackRate(input.userId);
        return { run: fallback(d, version, input, err, workerId), headers };
      }
    },
  };
}

function fallback(d: QueuedStartDeps, version: AgentVersion, input: StartInput, cause: StoreBusy, workerId?: string): RunRow {
  const { runs } = d;
  const runId = newId('run');
  const conversationId = input.conversationId ?? (input.conversation ? newId('conv') : undefined);
  d.metrics.fallback.inc();
  runs.metrics.started.inc({ mode: 'fallback' });
  runs.log.warn('queue store busy: running the run in the web process (not durable)', { runId, error: cause.message });
  // Answer now; write once the store accepts writes.
  void (async () => {
    const until = runs.clock.now() + 10 * 60_000;
    let run: RunRow | undefined;
    for (let delay = 200; !run; delay = Math.min(delay * 2, 5000)) {
      try {
        run = await insertNewRun(runs, version, input, { status: 'running', durable: false, runId, ...(conversationId ? { conversationId } : {}), ...(workerId ? { workerId } : {}) });
      } catch (err) {
        if (!(err instanceof StoreBusy) || runs.clock.now() > until) {
          runs.log.error('fallback run could not be recorded; it is lost', { runId, error: err });
          return;
        }
        await new Promise((r) => setTimeout(r, delay));
      }
    }
    await addEvent(runs.db, run.id, 'run.fallback', { durable: false, reason: 'the queue store did not accept the job within 5 seconds; executed in the web process' }, new Date(runs.clock.now()).toISOString());
    await executeRun(runs, run.id, run.claim_token!);
  })().catch((err: unknown) => runs.log.error('fallback run failed', { runId, error: err }));
  const now = new Date(runs.clock.now()).toISOString();
  return {
    id: runId, agent_id: input.agentId, agent_version: version.version, workspace_id: version.workspaceId, user_id: input.userId,
    conversation_id: conversationId ?? null, status: 'running', input_text: input.inputText, output_text: null, error_message: null,
    error_code: null, approval_id: null, durable: 0, claim_token: null, created_at: now, started_at: now, running_since: now, finished_at: null,
  };
}
