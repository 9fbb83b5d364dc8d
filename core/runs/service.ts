import { enqueue } from '../queue/repo.ts';
import type { QueueMetrics } from '../queue/metrics.ts';
import type { Requeue } from './approvals.ts';
import { executeRun } from './executor.ts';
import { queuedStarter } from './queued-start.ts';
import { getRun } from './repo/runs.ts';
import type { RunsRuntime } from './runtime.ts';
import { insertRunningRun, prepareRun, prepareRunTarget, type StartInput } from './start.ts';
import type { RunRow } from './types.ts';

/** The run engine plus its two ways onto the queue: a queued start and an approval's resume. */
export interface RunsService extends RunsRuntime {
  starter: ReturnType<typeof queuedStarter>;
  /** Re-queues an approved durable run (inside the decision's transaction). */
  requeue: Requeue;
}

export function runsService(rt: RunsRuntime, metrics: QueueMetrics, fallbackLimit: number): RunsService {
  const { deps } = rt;
  return {
    ...rt,
    starter: queuedStarter({ runs: deps, metrics, fallbackLimit }),
    requeue: async (q, runId, approvalId) => {
      await enqueue(q, { kind: 'run', runId, uniqueKey: `resume:${approvalId}` }, deps.clock.now());
    },
  };
}

/** Rate-limit headers for the answer; called on refusals too. */
export type HeaderSink = (headers: Record<string, string>) => void;

/** A queued start: the run and its job written now, a worker runs it (202). */
export async function startQueuedRun(s: RunsService, input: StartInput, headers: HeaderSink = () => {}): Promise<RunRow> {
  const version = await prepareRun(s.deps, input);
  // The start's rate-limit hit, the run and its job: one transaction (or the 5 s fallback).
  const { run, headers: h } = await s.starter.start(version, input, s.limiter);
  headers(h);
  return run;
}

/** An in-request start: the run executes before the answer (201) and returns its final row. */
export async function startRunInRequest(s: RunsService, input: StartInput, headers: HeaderSink): Promise<RunRow> {
  const { deps, limiter } = s;
  // Refused starts count too, so the allowance bounds probing for agents.
  let prepared;
  try {
    prepared = await prepareRunTarget(deps, input);
  } catch (err) {
    headers((await limiter.take(input.userId)).headers);
    throw err;
  }
  let h: Record<string, string> = {};
  const { run, first } = await insertRunningRun(deps, prepared, input, async (q) => {
    h = (await limiter.takeIn(q, input.userId)).headers;
  });
  headers(h);
  deps.metrics.started.inc({ mode: 'request' });
  // Not tied to the connection: a dropped client reads the result later.
  const sink: { row?: RunRow } = {};
  const outcome = await executeRun(deps, run.id, run.claim_token!, { preloaded: { ...prepared, run, first }, sink });
  // Read back only when the run was lost.
  return outcome !== 'not_owned' && sink.row ? sink.row : (await getRun(deps.db, run.id))!;
}
