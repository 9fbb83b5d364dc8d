import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

// CSPRNG bytes in 4 KiB blocks, each used once, as randomUUID does (docs/performance.md).
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let at = 0;

/** `n` ≤ 4096 fresh random bytes, valid until the next call. */
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

/** `prefix` plus 20 base-36 characters (≈ 103 bits). */
export function newId(prefix: string): string {
  return randomChars(prefix + '_', 20);
}

/** Like newId but time-sorted (9 clock + 11 random characters), so hot tables'
 * new keys land at the B-tree's cached end, not on random pages. */
export function newTimeId(prefix: string, nowMs: number): string {
  return randomChars(`${prefix}_${Math.max(0, Math.floor(nowMs)).toString(36).padStart(9, '0').slice(-9)}`, 11);
}

export const ID_PATTERN = /^[a-z]{2,4}_[0-9a-z]{20}$/;
