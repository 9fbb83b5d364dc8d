import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Async scrypt at OWASP's N=2^17, r=8, p=1: a login never blocks the loop.
 * Parameters live in the hash, so the cost can rise later.
 */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}
export const OWASP_SCRYPT: ScryptCost = { N: 2 ** 17, r: 8, p: 1 };
const KEY_LEN = 32;

function derive(password: string, salt: Buffer, c: ScryptCost): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    // maxmem must exceed 128·N·r or scrypt refuses the OWASP cost.
    scrypt(password.normalize('NFC'), salt, KEY_LEN, { N: c.N, r: c.r, p: c.p, maxmem: 256 * c.N * c.r }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string, cost: ScryptCost = OWASP_SCRYPT): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  const expected = Buffer.from(parts[5]!, 'base64url');
  const key = await derive(password, Buffer.from(parts[4]!, 'base64url'), { N, r, p });
  return key.length === expected.length && timingSafeEqual(key, expected);
}
