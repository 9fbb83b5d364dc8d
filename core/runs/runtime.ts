import { deriveKey } from '../auth/keys.ts';
import { checkVersionTarget } from '../agents/target.ts';
import type { GatewayRuntime } from '../gateway/runtime.ts';
import type { Core } from '../index.ts';
import type { Sandbox } from '../sandbox/index.ts';
import { toolLimitsFromConfig, toolLookup } from '../tools/registry.ts';
import type { RunDeps } from './deps.ts';
import { runMetrics } from './metrics.ts';
import { countPendingApprovals } from './repo/approvals.ts';
import { RunStartLimiter } from './ratelimit.ts';

export interface RunsRuntime {
  deps: RunDeps;
  limiter: RunStartLimiter;
}

export interface RunsParts {
  gateway: GatewayRuntime;
  sandbox: Sandbox;
  onEnd?: RunDeps['onEnd'];
}

export interface RunsOptions {
  watchIntervalMs?: number;
}

/** The run engine's parts for one Core (shared by the web process and `svc worker`). */
export function createRuns(core: Core, parts: RunsParts, opts: RunsOptions = {}): RunsRuntime {
  const { db, clock, log } = core;
  const rt = parts.gateway;
  const metrics = runMetrics(core.metrics.registry, async () =>
    countPendingApprovals(core.db),
  );
  const deps: RunDeps = {
    db,
    clock,
    log,
    engine: rt.engine,
    usage: rt.usage,
    resolve: (v, account) => checkVersionTarget(rt, v, account),
    tool: toolLookup(core.config),
    toolLimits: toolLimitsFromConfig(core.config),
    vault: rt.vault,
    sandbox: parts.sandbox,
    approvalKey: deriveKey(core.secrets.SERVICE_APPROVAL_SECRET, 'approval'),
    metrics,
    ...(opts.watchIntervalMs !== undefined ? { watchIntervalMs: opts.watchIntervalMs } : {}),
    ...(parts.onEnd ? { onEnd: parts.onEnd } : {}),
  };
  const limiter = new RunStartLimiter({ db, clock }, core.config.RATE_LIMIT_CHAT_PER_MINUTE, deriveKey(core.secrets.SERVICE_RATE_LIMIT_SECRET, 'run-start'));
  return { deps, limiter };
}
