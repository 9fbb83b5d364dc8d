import { backoffMs } from '../kernel/backoff.ts';
import { UpstreamError } from '../providers/types.ts';
import type { RunDeps } from './deps.ts';
import { addEvent, countEvents } from './repo/events.ts';
import { dropUnservedStep } from './repo/steps.ts';

/**
 * Queued runs and a provider that is down (issue 12): a model call that failed *unambiguously* —
 * connection refused, DNS failure, 429, or 503 with Retry-After: the provider served nothing
 * (UpstreamError.noWork) — is retried later instead of failing the run. Its ledger row is removed
 * (nothing can have been charged), the job goes back to the queue with a backoff, and the next
 * claim sends the call again. Retries stop where the run's 15-minute execution limit would pass;
 * the run then fails as before. An ambiguous failure (timeout after sending, reset mid-answer, a
 * 5xx without Retry-After) is never retried: the ledger rule stands.
 */

export const RETRY_EVENT = 'step.retrying';
const BASE_MS = 1000;
const MAX_MS = 60_000;

/** Thrown by the executor when the run goes back to the queue to retry after `delayMs`. */
export class ProviderRetry extends Error {
  readonly delayMs: number;
  constructor(delayMs: number) {
    super(`retrying the model call in ${delayMs} ms`);
    this.name = 'ProviderRetry';
    this.delayMs = delayMs;
  }
}

/** 1 s, 2 s, 4 s … up to 60 s (plus up to 25% jitter), never sooner than the provider's Retry-After. */
export function retryDelay(retriesSoFar: number, retryAfterMs: number | undefined, base = BASE_MS, max = MAX_MS): number {
  return backoffMs({ retries: retriesSoFar, baseMs: base, maxMs: max, maxDoublings: 16, jitter: 0.25, retryAfterMs });
}

/**
 * When `err` may be retried for this run, records the retry (the ledger row removed, an event) and
 * returns the ProviderRetry to throw; otherwise undefined (the caller fails the step as before).
 */
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
