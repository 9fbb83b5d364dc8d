import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { crc32 } from './crc32.ts';
import { issueToken, kindOf, safeEqual, tokenHash, tokenPreview, wellFormed, TOKEN_PREFIXES, type TokenKind } from './tokens.ts';
import { deriveKey } from './keys.ts';

describe('tokens', () => {
  it('crc32 matches the IEEE check value', () => {
    assert.equal(crc32('123456789'), 0xcbf43926);
  });
  for (const kind of Object.keys(TOKEN_PREFIXES) as TokenKind[]) {
    it(`${kind}: issued tokens are well-formed, unique and typed`, () => {
      const a = issueToken(kind);
      const b = issueToken(kind);
      assert.notEqual(a, b);
      assert.ok(a.startsWith(TOKEN_PREFIXES[kind]));
      assert.ok(wellFormed(a, kind));
      assert.equal(kindOf(a), kind);
    });
  }
  it('refuses a changed character, a wrong prefix, a wrong length and foreign characters', () => {
    const t = issueToken('access');
    const i = 12;
    const flipped = t.slice(0, i) + (t[i] === 'a' ? 'b' : 'a') + t.slice(i + 1);
    assert.equal(wellFormed(flipped, 'access'), false);
    assert.equal(wellFormed(t, 'member'), false);
    assert.equal(wellFormed(t + 'x', 'access'), false);
    assert.equal(wellFormed(t.slice(0, -1) + '-', 'access'), false);
    assert.equal(wellFormed('', 'access'), false);
  });
  it('hash is keyed and stable; preview shows prefix and last 4 only', () => {
    const t = issueToken('member');
    const k1 = deriveKey('s1'.padEnd(32, 'x'), 'token-hash');
    const k2 = deriveKey('s2'.padEnd(32, 'x'), 'token-hash');
    assert.equal(tokenHash(k1, t), tokenHash(k1, t));
    assert.notEqual(tokenHash(k1, t), tokenHash(k2, t));
    assert.equal(tokenPreview(t), `svc_live_…${t.slice(-4)}`);
    assert.ok(!tokenPreview(t).includes(t.slice(9, 20)));
  });
  it('safeEqual compares unequal lengths without throwing', () => {
    assert.equal(safeEqual('abc', 'abcd'), false);
    assert.equal(safeEqual('abc', 'abc'), true);
  });
  it('derived keys differ per purpose', () => {
    assert.notDeepEqual(deriveKey('same-secret', 'a'), deriveKey('same-secret', 'b'));
  });
});
