import type { z } from 'zod';
import type { Clock } from '../kernel/clock.ts';
import type { Db } from '../store/types.ts';
import type { Logger } from '../kernel/log.ts';
import type { Sandbox } from '../sandbox/types.ts';

/** Limits every tool execution runs under (from configuration). */
export interface ToolLimits {
  httpTimeoutMs: number;
  httpMaxResponseBytes: number;
  httpMaxRequestBytes: number;
  /** Allow requests to loopback, private, link-local and other non-public addresses. */
  httpAllowPrivate: boolean;
  /** When non-empty, only these hostnames (or `*.suffix`) may be called. */
  httpAllowedHosts: string[];
}

/** For tools that write to the store (create_app). */
export interface ToolRunContext {
  runId: string;
  workspaceId: string;
  userId: string;
  /** A tool's writes are fenced on it, like every run write. */
  claimToken: string;
  db: Db;
  clock: Clock;
}

export interface ToolContext {
  signal: AbortSignal;
  limits: ToolLimits;
  /** Absent outside a run (tests, tools). */
  run?: ToolRunContext;
  /** Where run_code executes (absent: code execution is not available). */
  sandbox?: Sandbox | undefined;
  log?: Logger | undefined;
}

/** Data for the model plus code. */
export interface ToolDefinition<C = Record<string, unknown>> {
  type: string;
  description: string;
  /** Sent to the model as the function's parameters. */
  parameters: Record<string, unknown>;
  /** Validates the agent-level config of this tool at draft/publish time. */
  config: z.ZodType<C>;
  /** Return failures the model should see as text; throw only for the tool's own. */
  execute(args: unknown, config: C, ctx: ToolContext): Promise<string>;
  /** For a call whose executor died; absent, the run fails. */
  interrupted?(): string;
}
