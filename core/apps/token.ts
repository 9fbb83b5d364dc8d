import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { deriveKey } from '../auth/keys.ts';

/**
 * `appId.version.workspaceId.exp.mac`: nothing is stored.
 * Rotating SERVICE_PREVIEW_SECRET ends every link at once.
 */

export interface PreviewClaims {
  appId: string;
  version: number;
  workspaceId: string;
  /** Expiry, epoch seconds: valid while now < exp. */
  exp: number;
}

/** A KeyObject's HMAC costs a fifth of a Buffer's (docs/performance.md). */
export const previewKey = (secret: string): KeyObject => createSecretKey(deriveKey(secret, 'preview-token'));

const ID = /^[a-z]{2,8}_[a-z0-9]{8,40}$/;
const DIGITS = /^[1-9][0-9]{0,9}$/;
const MAC_CHARS = 43; // 32 bytes, base64url without padding
const DOMAIN = 'svc-preview-v1';

function mac(key: KeyObject, c: PreviewClaims): Buffer {
  // ID/DIGITS allow no '\n', so this joining is unambiguous.
  return createHmac('sha256', key).update(`${DOMAIN}\n${c.appId}\n${c.version}\n${c.workspaceId}\n${c.exp}`).digest();
}

export function signPreviewToken(key: KeyObject, c: PreviewClaims): string {
  if (!ID.test(c.appId) || !ID.test(c.workspaceId) || !DIGITS.test(String(c.version)) || !DIGITS.test(String(c.exp))) {
    throw new Error('preview token claims out of range');
  }
  return `${c.appId}.${c.version}.${c.workspaceId}.${c.exp}.${mac(key, c).toString('base64url')}`;
}

/** Undefined for anything but a genuine, unexpired token, without saying why. */
export function verifyPreviewToken(key: KeyObject, token: string, nowMs: number): PreviewClaims | undefined {
  if (token.length > 200) return undefined;
  const parts = token.split('.');
  if (parts.length !== 5) return undefined;
  const [appId, version, workspaceId, exp, given] = parts as [string, string, string, string, string];
  if (!ID.test(appId) || !ID.test(workspaceId) || !DIGITS.test(version) || !DIGITS.test(exp)) return undefined;
  if (given.length !== MAC_CHARS || !/^[A-Za-z0-9_-]+$/.test(given)) return undefined;
  const claims: PreviewClaims = { appId, version: Number(version), workspaceId, exp: Number(exp) };
  const got = Buffer.from(given, 'base64url');
  // 43 characters hold 258 bits: demand the canonical encoding too.
  const want = mac(key, claims);
  if (got.length !== want.length || !timingSafeEqual(got, want) || got.toString('base64url') !== given) return undefined;
  if (nowMs >= claims.exp * 1000) return undefined;
  return claims;
}
