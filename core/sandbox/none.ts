import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classify } from './classify.ts';
import { execute } from './execute.ts';
import { findProgram, rlimitArgs } from './host.ts';
import { resolveRuntime, type RuntimePlan } from './runtime.ts';
import type { Enforcement, RunRequest, RunResult, Sandbox, SandboxLimits, SandboxRuntime } from './types.ts';

/** Development only: just the wall clock and RLIMIT_CPU; nothing else is confined. */
export function noneSandbox(runtime: SandboxRuntime, limits: SandboxLimits, pythonCmd: string): Sandbox {
  const live = new Set<{ kill(): void }>();
  let plan: Promise<RuntimePlan> | undefined;
  const prlimit = findProgram('prlimit');
  const enforcement: Enforcement = {
    memory: 'not enforced', processes: 'not enforced', cpu: prlimit ? 'RLIMIT_CPU' : 'not enforced', storage: 'not enforced', network: 'not enforced',
  };
  return {
    driver: 'none',
    runtime,
    limits,
    enforcement: async () => enforcement,
    async run(req: RunRequest): Promise<RunResult> {
      const rt = await (plan ??= resolveRuntime(runtime, pythonCmd).catch((e: unknown) => {
        plan = undefined;
        throw e;
      }));
      const dir = mkdtempSync(join(tmpdir(), 'svc-sbx-none-'));
      try {
        const file = join(dir, rt.codeName);
        writeFileSync(file, req.code);
        mkdirSync(join(dir, 'output'));
        const argv = rt.hostArgv(file);
        const o = await execute({
          argv: prlimit ? [prlimit, ...rlimitArgs({ cpuSeconds: limits.cpuSeconds }), '--', ...argv] : argv,
          env: { PATH: '/usr/bin:/bin', HOME: dir, TMPDIR: dir, LANG: 'C.UTF-8', SVC_SANDBOX_RESULT_FD: '4', SVC_SANDBOX_OUTPUT: join(dir, 'output') },
          cwd: dir, stdin: req.stdin, timeoutMs: limits.timeoutMs, signal: req.signal, processGroup: true, live,
        });
        if (o.aborted) throw req.signal?.reason ?? new Error('aborted');
        return classify(o, { oomKilled: false, pidsLimitHit: false, cpuSeconds: undefined, proxyRefusals: 0 }, limits, enforcement);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    async close() {
      for (const e of live) e.kill();
    },
  };
}
