import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn from the CSPRNG in 4 KiB blocks and each byte is handed out once (as
// Node's own randomUUID does): one randomBytes(40) per id cost a few µs of RNG entry overhead
// on every hot path that makes ids (a run start makes two or three).
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let at = 0;

/** `n` fresh random bytes (n ≤ 4096); valid until the next call (copy them to keep them). */
export function randomPoolBytes(n: number): Buffer {
  if (at + n > pool.length) {
    pool = randomBytes(POOL_BYTES);
    at = 0;
  }
  const out = pool.subarray(at, at + n);
  at += n;
  return out;
}

/** Appends `count` uniform base-36 characters to `out`. */
function randomChars(out: string, count: number): string {
  let n = 0;
  while (n < count) {
    for (const b of randomPoolBytes(count - n + 4)) {
      if (b >= 252) continue; // 252 = 7·36: keep characters uniform
      out += ALPHABET[b % 36];
      if (++n === count) break;
    }
  }
  return out;
}

/** Prefixed random identifier (`usr_`, `ws_`, `run_`, …): 20 base-36 characters ≈ 103 bits. */
export function newId(prefix: string): string {
  return randomChars(prefix + '_', 20);
}

/**
 * Prefixed identifier that sorts by creation time: 9 base-36 characters of the millisecond clock,
 * then 11 random ones (≈ 57 bits; unique per millisecond beyond any practical doubt). Same shape
 * as newId. For rows written at a high rate whose id is a primary key that child tables index
 * too (runs → run_steps, run_events): new keys land at the end of the B-trees, on pages already
 * in the cache, instead of on a random page each.
 */
export function newTimeId(prefix: string, nowMs: number): string {
  return randomChars(`${prefix}_${Math.max(0, Math.floor(nowMs)).toString(36).padStart(9, '0').slice(-9)}`, 11);
}

export const ID_PATTERN = /^[a-z]{2,4}_[0-9a-z]{20}$/;
