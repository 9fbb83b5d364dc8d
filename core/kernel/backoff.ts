/** Exponential backoff: the one formula every retry in the service uses. */
export interface BackoffOptions {
  /** Retries so far: 0 gives `baseMs`, each one more doubles it. */
  retries: number;
  baseMs: number;
  /** Cap before jitter; none when omitted. */
  maxMs?: number;
  /** Doublings counted at most, so a large `retries` cannot overflow to Infinity. */
  maxDoublings?: number;
  /** Adds up to this fraction on top (0.25 = up to 25 % later). */
  jitter?: number;
  /** Never sooner than this (the upstream's Retry-After). */
  retryAfterMs?: number | undefined;
  random?: () => number;
}

export function backoffMs(o: BackoffOptions): number {
  const doublings = o.maxDoublings === undefined ? o.retries : Math.min(o.retries, o.maxDoublings);
  const capped = Math.min(o.maxMs ?? Infinity, o.baseMs * 2 ** doublings);
  const jittered = o.jitter ? capped * (1 + (o.random ?? Math.random)() * o.jitter) : capped;
  return Math.round(Math.max(jittered, o.retryAfterMs ?? 0));
}
