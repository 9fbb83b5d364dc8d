export const RUN_STATUSES = ['queued', 'running', 'waiting_input', 'completed', 'failed', 'cancelled', 'timed_out'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const TERMINAL: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'cancelled', 'timed_out']);

/** SPEC limits. */
export const EXECUTION_LIMIT_MS = 15 * 60_000;
export const ABANDON_AFTER_MS = 20 * 60_000;

export interface RunRow {
  id: string;
  agent_id: string;
  agent_version: number;
  workspace_id: string;
  user_id: string;
  conversation_id: string | null;
  status: RunStatus;
  input_text: string;
  output_text: string | null;
  error_message: string | null;
  error_code: string | null;
  approval_id: string | null;
  durable: number;
  claim_token: string | null;
  created_at: string;
  started_at: string | null;
  running_since: string | null;
  finished_at: string | null;
  /** The Worker that started the run (webhook or schedule); absent on rows built in memory. */
  worker_id?: string | null;
}

export interface StepRow {
  run_id: string;
  seq: number;
  kind: 'model' | 'tool';
  status: 'started' | 'completed' | 'failed' | 'waiting_approval' | 'rejected';
  name: string | null;
  call_id: string | null;
  input: string | null;
  output: string | null;
  error: string | null;
  provider: string | null;
  model: string | null;
  input_tokens: number;
  cached_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  total_tokens: number;
  started_at: string;
  finished_at: string | null;
}

export interface EventRow {
  run_id: string;
  seq: number;
  kind: string;
  data: string;
  created_at: string;
}

/** Ownership lost: stop quietly. */
export class Fenced extends Error {
  constructor(runId: string) {
    super(`run ${runId} is no longer owned by this executor`);
    this.name = 'Fenced';
  }
}

/** A run ended with an error the caller should read (error_code + error_message). */
export class RunFailure extends Error {
  readonly code: string;
  readonly status: 'failed' | 'timed_out' | 'cancelled';
  constructor(code: string, message: string, status: 'failed' | 'timed_out' | 'cancelled' = 'failed') {
    super(message);
    this.name = 'RunFailure';
    this.code = code;
    this.status = status;
  }
}
