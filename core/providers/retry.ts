import { backoffMs } from '../kernel/backoff.ts';
import { UpstreamError } from './types.ts';

export interface SafeRetryOptions {
  /** Total attempts, the first included (default 3). */
  attempts?: number;
  /** Called before each retry, e.g. to log or count it. */
  onRetry?: (err: UpstreamError, attempt: number, delayMs: number) => void;
  /** Stops waiting and retrying when aborted. */
  signal?: AbortSignal;
  /** Base backoff in ms (default 50): 50, 100, 200… plus up to 50% jitter. */
  baseDelayMs?: number;
}

/** Longer Retry-Afters go back to the caller. */
export const MAX_RETRY_AFTER_MS = 2000;

/** Retries only `noWork` failures: anything else may have been billed. `fn` gets the
 * 1-based attempt, to fall back to another target. */
export async function withSafeRetry<T>(fn: (attempt: number) => Promise<T>, opts: SafeRetryOptions = {}): Promise<T> {
  const attempts = Math.max(1, opts.attempts ?? 3);
  const base = opts.baseDelayMs ?? 50;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (e) {
      if (!(e instanceof UpstreamError) || !e.noWork || attempt >= attempts || opts.signal?.aborted) throw e;
      if (e.retryAfterMs !== undefined && e.retryAfterMs > MAX_RETRY_AFTER_MS) throw e;
      const delay = backoffMs({ retries: attempt - 1, baseMs: base, jitter: 0.5, retryAfterMs: e.retryAfterMs });
      opts.onRetry?.(e, attempt, delay);
      await sleep(delay, opts.signal);
      if (opts.signal?.aborted) throw e;
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
