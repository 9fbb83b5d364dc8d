import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from './crc32.ts';

/**
 * `<prefix><30 base62 random><6 base62 CRC32>`, stored only as an HMAC-SHA256:
 * a dump cannot be replayed, and equal lengths keep comparison constant-time.
 */
export const TOKEN_PREFIXES = {
  access: 'svc_pat_',
  member: 'svc_live_',
  admin: 'svc_admin_',
  invitation: 'svc_inv_',
  session: 'svc_ses_',
  webhook: 'svc_whk_',
  share: 'svc_shr_',
  reset: 'svc_rst_',
} as const;
export type TokenKind = keyof typeof TOKEN_PREFIXES;

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE62 = /^[0-9A-Za-z]+$/;
const BODY_LEN = 30;
const CHECK_LEN = 6;

function randomBase62(len: number): string {
  let out = '';
  while (out.length < len) {
    for (const b of randomBytes(len * 2)) {
      // Rejection sampling keeps every character equally likely (248 = 4·62).
      if (b < 248) out += ALPHABET[b % 62];
      if (out.length === len) break;
    }
  }
  return out;
}

function checksum(s: string): string {
  let n = crc32(s);
  let out = '';
  for (let i = 0; i < CHECK_LEN; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export function issueToken(kind: TokenKind): string {
  const head = TOKEN_PREFIXES[kind] + randomBase62(BODY_LEN);
  return head + checksum(head);
}

/** Shape and checksum only: no I/O, so garbage never reaches the store. */
export function wellFormed(token: string, kind: TokenKind): boolean {
  const prefix = TOKEN_PREFIXES[kind];
  if (token.length !== prefix.length + BODY_LEN + CHECK_LEN || !token.startsWith(prefix)) return false;
  if (!BASE62.test(token.slice(prefix.length))) return false;
  const head = token.slice(0, -CHECK_LEN);
  return checksum(head) === token.slice(-CHECK_LEN);
}

export function kindOf(token: string): TokenKind | undefined {
  for (const [kind, prefix] of Object.entries(TOKEN_PREFIXES)) if (token.startsWith(prefix)) return kind as TokenKind;
  return undefined;
}

/** The stored lookup key of a token. */
export function tokenHash(key: Buffer, token: string): string {
  return createHmac('sha256', key).update(token).digest('base64url');
}

/** `svc_pat_…AbCd`: recognisable in a list, useless to an attacker. */
export function tokenPreview(token: string): string {
  const kind = kindOf(token);
  const prefix = kind ? TOKEN_PREFIXES[kind] : '';
  return `${prefix}…${token.slice(-4)}`;
}

export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}
