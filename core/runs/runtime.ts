import { deriveKey } from '../auth/keys.ts';
import { checkVersionTarget } from '../agents/target.ts';
import { gatewayOf } from '../gateway/runtime.ts';
import type { Core } from '../index.ts';
import { sandboxOf } from '../sandbox/index.ts';
import { toolLimitsFromConfig, toolLookup } from '../tools/registry.ts';
import type { RunDeps } from './deps.ts';
import { runMetrics } from './metrics.ts';
import { countPendingApprovals } from './repo/approvals.ts';
import { RunStartLimiter } from './ratelimit.ts';

export interface RunsRuntime {
  deps: RunDeps;
  limiter: RunStartLimiter;
}

const runtimes = new WeakMap<Core, RunsRuntime>();

/** The run engine's parts for one Core (shared by the web process and `svc worker`). */
export function runsOf(core: Core, opts: { watchIntervalMs?: number } = {}): RunsRuntime {
  const hit = runtimes.get(core);
  if (hit) return hit;
  const rt = gatewayOf(core);
  const metrics = runMetrics(core.metrics.registry, async () =>
    countPendingApprovals(core.db),
  );
  const deps: RunDeps = {
    db: core.db,
    clock: core.clock,
    log: core.log,
    engine: rt.engine,
    usage: rt.usage,
    resolve: (v, account) => checkVersionTarget(rt, v, account),
    tool: toolLookup(core.config),
    toolLimits: toolLimitsFromConfig(core.config),
    vault: rt.vault,
    sandbox: sandboxOf(core),
    approvalKey: deriveKey(core.secrets.SERVICE_APPROVAL_SECRET, 'approval'),
    metrics,
    ...(opts.watchIntervalMs !== undefined ? { watchIntervalMs: opts.watchIntervalMs } : {}),
  };
  const limiter = new RunStartLimiter({ db: core.db, clock: core.clock }, core.config.RATE_LIMIT_CHAT_PER_MINUTE, deriveKey(core.secrets.SERVICE_RATE_LIMIT_SECRET, 'run-start'));
  const r = { deps, limiter };
  runtimes.set(core, r);
  return r;
}
