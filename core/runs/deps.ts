import type { TargetAccount } from '../agents/access.ts';
import type { AgentVersion } from '../agents/types.ts';
import type { Clock } from '../kernel/clock.ts';
import type { Resolved } from '../gateway/catalogue.ts';
import type { Logger } from '../kernel/log.ts';
import type { ProviderEngine } from '../providers/types.ts';
import type { Sandbox } from '../sandbox/types.ts';
import type { Db, Queryable } from '../store/types.ts';
import type { ToolDefinition, ToolLimits } from '../tools/types.ts';
import type { UsageRecorder } from '../usage/recorder.ts';
import type { Vault } from '../vault/index.ts';
import type { RunMetrics } from './metrics.ts';
import type { RunRow, RunStatus } from './types.ts';

/** Everything the executor, the start path and the read path work with. */
export interface RunDeps {
  db: Db;
  clock: Clock;
  log: Logger;
  engine: ProviderEngine;
  usage: UsageRecorder;
  /** The agent version's provider target; throws the 400 (providerAccountId/model) when invalid.
   * `account`: the version's account row as already read (null = not in the store). */
  resolve(version: AgentVersion, account?: TargetAccount | null): Promise<Resolved>;
  tool(type: string): ToolDefinition | undefined;
  toolLimits: ToolLimits;
  /** Opens the sealed credential headers of a tool's config just before it runs (agents/tool-secrets.ts). */
  vault: Vault;
  /** Where run_code runs (SERVICE_SANDBOX_*). */
  sandbox?: Sandbox;
  /** Signs approval decisions (derived from SERVICE_APPROVAL_SECRET). */
  approvalKey: Buffer;
  metrics: RunMetrics;
  /** How often the execution-limit watcher looks at the clock (ms). */
  watchIntervalMs?: number;
  /**
   * Called inside the transaction that writes a run's terminal status (completed, failed,
   * timed_out, cancelled by its executor). Must only write small rows (it holds that transaction):
   * core/services.ts passes the Workers' notification enqueue here.
   */
  readonly onEnd?: (q: Queryable, run: RunRow, status: RunStatus) => Promise<void>;
}
