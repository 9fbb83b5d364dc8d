import { hkdfSync } from 'node:crypto';

/**
 * Purpose-bound keys derived from the configured secrets, so one secret never serves two uses
 * directly (a key for hashing tokens cannot be replayed as a cookie-signing key).
 */
export function deriveKey(secret: string, purpose: string, length = 32): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), `svc:${purpose}:v1`, length));
}
