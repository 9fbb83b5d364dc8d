import { backoffMs } from '../kernel/backoff.ts';
import { UpstreamError } from '../providers/types.ts';
import type { RunDeps } from './deps.ts';
import { addEvent, countEvents } from './repo/events.ts';
import { dropUnservedStep } from './repo/steps.ts';

/** A queued run retries only `noWork` calls, within its 15 minutes (docs/limits.md);
 * ambiguous failures keep the ledger rule. */

export const RETRY_EVENT = 'step.retrying';
const BASE_MS = 1000;
const MAX_MS = 60_000;

/** The run goes back to the queue for `delayMs`. */
export class ProviderRetry extends Error {
  readonly delayMs: number;
  constructor(delayMs: number) {
    super(`retrying the model call in ${delayMs} ms`);
    this.name = 'ProviderRetry';
    this.delayMs = delayMs;
  }
}

/** 1 s doubling to 60 s, +25 % jitter, never before Retry-After. */
export function retryDelay(retriesSoFar: number, retryAfterMs: number | undefined, base = BASE_MS, max = MAX_MS): number {
  return backoffMs({ retries: retriesSoFar, baseMs: base, maxMs: max, maxDoublings: 16, jitter: 0.25, retryAfterMs });
}

/** The ProviderRetry to throw, after dropping the ledger row; undefined if not retryable. */
export async function scheduleRetry(deps: RunDeps, run: { id: string }, token: string, seq: number, err: unknown, deadline: number | undefined): Promise<ProviderRetry | undefined> {
  if (deadline === undefined || !(err instanceof UpstreamError) || !err.noWork) return undefined;
  const retries = await countEvents(deps.db, run.id, RETRY_EVENT);
  const delay = retryDelay(retries, err.retryAfterMs);
  const now = deps.clock.now();
  if (now + delay >= deadline) return undefined;
  const at = new Date(now).toISOString();
  await deps.db.tx(async (q) => {
    await dropUnservedStep(q, token, run.id, seq);
    await addEvent(q, run.id, RETRY_EVENT, { seq, kind: 'model', attempt: retries + 1, retryInMs: delay, error: err.message }, at);
  });
  logRetry(deps, run.id, seq, retries + 1, delay, err);
  return new ProviderRetry(delay);
}

function logRetry(deps: RunDeps, runId: string, seq: number, attempt: number, delay: number, err: UpstreamError): void {
  deps.log.warn('model call refused before any work; the run will retry', { runId, seq, attempt, retryInMs: delay, status: err.status, cause: `${err.body.error.code ?? 'upstream_error'}: ${err.message}` });
}
