import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { hashPassword, verifyPassword } from './password.ts';

const FAST = { N: 2 ** 10, r: 8, p: 1 };

describe('password hashing', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const h = await hashPassword('correct horse', FAST);
    assert.match(h, /^scrypt\$1024\$8\$1\$/);
    assert.equal(await verifyPassword('correct horse', h), true);
    assert.equal(await verifyPassword('correct horsf', h), false);
  });
  it('salts every hash', async () => {
    assert.notEqual(await hashPassword('x', FAST), await hashPassword('x', FAST));
  });
  it('normalises unicode (NFC) so the same password typed differently matches', async () => {
    const h = await hashPassword('caf\u00e9', FAST);
    assert.equal(await verifyPassword('cafe\u0301', h), true);
  });
  it('refuses malformed stored hashes', async () => {
    assert.equal(await verifyPassword('x', 'plain'), false);
  });
  it('the OWASP cost is accepted by scrypt (maxmem large enough)', async () => {
    const h = await hashPassword('x');
    assert.match(h, /^scrypt\$131072\$8\$1\$/);
  });
});
