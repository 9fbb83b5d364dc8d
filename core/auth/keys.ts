import { hkdfSync } from 'node:crypto';

/** Purpose-bound, so a token-hashing key cannot be replayed as a cookie-signing key. */
export function deriveKey(secret: string, purpose: string, length = 32): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), `svc:${purpose}:v1`, length));
}
