import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { createVault } from './index.ts';

describe('vault', () => {
  const v = createVault('k'.repeat(40));
  it('round-trips and never stores the plaintext', () => {
    const s = v.seal('sk-secret-123', 'pa_1');
    assert.ok(!s.includes('sk-secret'));
    assert.equal(v.open(s, 'pa_1'), 'sk-secret-123');
    assert.notEqual(v.seal('sk-secret-123', 'pa_1'), s, 'fresh IV each time');
  });
  it('refuses a ciphertext moved to another row, a tampered one, and another key', () => {
    const s = v.seal('sk', 'pa_1');
    assert.throws(() => v.open(s, 'pa_2'));
    const parts = s.split('.');
    parts[3] = Buffer.from('xx').toString('base64url');
    assert.throws(() => v.open(parts.join('.'), 'pa_1'));
    assert.throws(() => createVault('other'.repeat(10)).open(s, 'pa_1'));
  });
});
