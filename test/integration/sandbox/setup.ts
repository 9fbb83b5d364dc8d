// Shared by the run_code sandbox tests: an agent whose model (the fake) asks for several run_code
// calls at once, run in the request and through the queue on either store, and what the model was
// shown for each call. Small limits keep the cases short: 5 s wall clock, 1 CPU-second, 96 MiB,
// 32 tasks, 8 MiB of /tmp.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { QueueWorker } from '../../../core/queue/worker.ts';
import type { Dialect } from '../../../core/store/types.ts';
import { startRuns, type RunsEnv } from '../runs/setup.ts';

export const SANDBOX_ENV = {
  SERVICE_SANDBOX_TIMEOUT_MS: '5000', // room for 1 CPU-second when the calls share a loaded core
  SERVICE_SANDBOX_CPU_SECONDS: '1',
  SERVICE_SANDBOX_MEMORY_MB: '96',
  SERVICE_SANDBOX_MAX_PROCESSES: '32',
  SERVICE_SANDBOX_TMP_MB: '8',
};

export interface ToolResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  durationMs: number;
  limit: string | null;
}

export interface Case {
  id: string;
  code: string;
  check(r: ToolResult): void;
}

export interface SandboxEnv {
  r: RunsEnv;
  token: string;
  agentId: string;
  worker: QueueWorker;
  close(): Promise<void>;
}

export async function startSandboxRuns(store: Dialect, env: Record<string, string> = {}): Promise<SandboxEnv> {
  const r = await startRuns({ store, env: { ...SANDBOX_ENV, ...env } });
  const token = await r.token(r.g.people.member);
  const agentId = await r.agent(r.g.people.member, { instructions: 'Run code.', tools: [{ type: 'run_code' }], settings: { maxSteps: 50 } });
  const worker = r.g.services.queue.worker({ concurrency: 1, leaseMs: 10_000 });
  void worker.start();
  return {
    r, token, agentId, worker,
    async close() {
      await worker.stop(2000);
      await r.close();
    },
  };
}

/**
 * One run whose model asks for every case in one turn and then answers "done"; returns what the
 * second model call was shown for each case, after checking the run completed.
 */
export async function runCases(e: SandboxEnv, cases: Case[], mode: 'in-request' | 'queued'): Promise<Map<string, ToolResult>> {
  const { r } = e;
  r.g.openai.reset();
  r.g.openai.once({ toolCalls: cases.map((c) => ({ id: c.id, name: 'run_code', arguments: JSON.stringify({ code: c.code }) })) });
  r.g.openai.once({ text: 'done' });
  const res = await r.start(e.token, e.agentId, { inputText: `sandbox cases (${mode})`, ...(mode === 'queued' ? { async: true } : {}) });
  assert.equal(res.status, mode === 'queued' ? 202 : 201, res.text);
  let run = res.body;
  const deadline = Date.now() + 120_000;
  while (mode === 'queued' && run.status !== 'completed' && run.status !== 'failed' && Date.now() < deadline) {
    await new Promise((ok) => setTimeout(ok, 100));
    run = (await r.read(e.token, e.agentId, res.body.runId)).body.run;
  }
  assert.equal(run.status, 'completed', JSON.stringify(run));
  assert.equal(run.outputText, 'done');
  const seen = r.g.openai.requests[1]!.body.messages as { role: string; tool_call_id?: string; content: string }[];
  const out = new Map<string, ToolResult>();
  for (const m of seen) if (m.role === 'tool') out.set(m.tool_call_id!, JSON.parse(m.content) as ToolResult);
  assert.deepEqual([...out.keys()], cases.map((c) => c.id), 'the model saw one result per call, in order');
  for (const c of cases) {
    const got = out.get(c.id)!;
    assert.deepEqual(Object.keys(got), ['exitCode', 'stdout', 'stderr', 'durationMs', 'limit'], c.id);
    try {
      c.check(got);
    } catch (err) {
      throw new Error(`case ${c.id} (${mode}): ${(err as Error).message}\nresult: ${JSON.stringify(got).slice(0, 2000)}`, { cause: err });
    }
  }
  return out;
}

/** Host processes whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(marker)) pids.push(Number(p));
    } catch {}
  }
  return pids;
}

/** cgroups this process made for executions and did not remove (memory and pids hierarchies). */
export function leftoverCgroups(): string[] {
  const out: string[] = [];
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const m = /^\d+:(memory|pids):(.*)$/.exec(line);
    if (!m) continue;
    const dir = join('/sys/fs/cgroup', m[1]!, m[2]!);
    try {
      for (const n of readdirSync(dir)) if (n.startsWith(`svc-sbx-${process.pid}-`)) out.push(join(dir, n));
    } catch {}
  }
  return out;
}

export const expectLimit = (limit: string | null, extra?: (r: ToolResult) => void) => (r: ToolResult) => {
  assert.equal(r.limit, limit);
  if (limit) assert.match(r.stderr, new RegExp(`\\[sandbox\\] ${limit === 'network' ? 'network' : 'stopped'}`));
  extra?.(r);
};
