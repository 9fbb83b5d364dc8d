import type { Clock } from '../kernel/clock.ts';
import { newId } from '../kernel/ids.ts';
import type { Logger } from '../kernel/log.ts';
import type { Db, SqlValue } from '../store/types.ts';
import type { UsageSplits } from '../wire/openai.ts';
import { insertUsageRows, STATEMENT_ROWS } from './repo.ts';

export interface UsageEvent extends UsageSplits {
  workspaceId: string;
  userId: string;
  credentialId: string | null;
  /** chat | responses | embeddings | agent_run */
  source: string;
  provider: string;
  accountId: string;
  model: string;
  status: number;
  latencyMs: number;
  at: number;
  /** The counts are an estimate (a stream that ended without the upstream's usage). */
  estimated?: boolean;
}

// Time-sorted ids append to the index (docs/performance.md); tag and counter keep them unique.
const PROCESS_TAG = newId('x').slice(2, 8);
let counter = 0;
function nextId(at: number): string {
  counter = (counter + 1) % 1_679_616; // 36^4
  return `use_${at.toString(36).padStart(9, '0')}${counter.toString(36).padStart(4, '0')}${PROCESS_TAG}`;
}
const MAX_BATCH = 500;

/** Batched off the response path; `close` flushes, and failed rows wait for the next try. */
export class UsageRecorder {
  readonly #db: Db;
  readonly #log: Logger;
  readonly #intervalMs: number;
  #pending: UsageEvent[] = [];
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #closed = false;

  constructor(deps: { db: Db; clock: Clock; log: Logger }, opts: { intervalMs?: number } = {}) {
    this.#db = deps.db;
    this.#log = deps.log;
    this.#intervalMs = opts.intervalMs ?? 250;
  }

  get pending(): number {
    return this.#pending.length;
  }

  record(e: UsageEvent): void {
    this.#pending.push(e);
    if (this.#pending.length >= MAX_BATCH) void this.#background();
    else if (!this.#timer && !this.#closed) {
      this.#timer = setTimeout(() => void this.#background(), this.#intervalMs);
      this.#timer.unref();
    }
  }

  /** Writes everything recorded so far (and waits for a flush already under way). */
  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer), (this.#timer = undefined);
    while (this.#flushing) await this.#flushing;
    if (this.#pending.length === 0) return;
    const batch = this.#pending;
    this.#pending = [];
    this.#flushing = this.#write(batch)
      .catch((err: unknown) => {
        // Keep the rows: the next flush (or close) tries again.
        this.#pending = batch.concat(this.#pending);
        this.#log.error('usage flush failed; will retry', { rows: batch.length, error: err });
        if (!this.#closed && !this.#timer) {
          this.#timer = setTimeout(() => void this.#background(), 1000);
          this.#timer.unref();
        }
        throw err;
      })
      .finally(() => (this.#flushing = undefined));
    await this.#flushing;
    if (this.#pending.length > 0) await this.flush();
  }

  /** Never rethrows: an unhandled rejection would end the process. */
  #background(): Promise<void> {
    return this.flush().catch(() => {});
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }

  async #write(batch: UsageEvent[]): Promise<void> {
    await this.#db.tx(async (q) => {
      let i = 0;
      for (const size of STATEMENT_ROWS) {
        for (; batch.length - i >= size; i += size) {
          const params: SqlValue[] = [];
          for (let k = i; k < i + size; k++) {
            const e = batch[k]!;
            const at = new Date(e.at).toISOString();
            params.push(nextId(e.at), e.workspaceId, e.userId, e.credentialId, e.source, e.provider, e.accountId, e.model, e.status,
              e.inputTokens, e.cachedTokens, e.outputTokens, e.reasoningTokens, e.totalTokens, Math.round(e.latencyMs), at.slice(0, 10), at, e.estimated ? 1 : 0);
          }
          await insertUsageRows(q, size, params);
        }
      }
    });
  }
}
