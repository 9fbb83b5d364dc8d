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
  /** Throws the 400 for a bad target; `account` is the row already read (null: none). */
  resolve(version: AgentVersion, account?: TargetAccount | null): Promise<Resolved>;
  tool(type: string): ToolDefinition | undefined;
  toolLimits: ToolLimits;
  /** Opens a tool's sealed headers just before it runs. */
  vault: Vault;
  /** Where run_code runs (SERVICE_SANDBOX_*). */
  sandbox?: Sandbox;
  /** From SERVICE_APPROVAL_SECRET. */
  approvalKey: Buffer;
  metrics: RunMetrics;
  /** Execution-limit watcher's period, ms. */
  watchIntervalMs?: number;
  /** Inside the run's ending transaction, so write only small rows (Workers' notifications). */
  readonly onEnd?: (q: Queryable, run: RunRow, status: RunStatus) => Promise<void>;
}
