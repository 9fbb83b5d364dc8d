import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { createSecretKey } from 'node:crypto';
import { previewKey, signPreviewToken, verifyPreviewToken, type PreviewClaims } from './token.ts';

const key = previewKey('a preview secret that is long enough, really');
const claims: PreviewClaims = { appId: 'app_0123456789abcdefghij', version: 3, workspaceId: 'ws_abcdefghij0123456789', exp: 1_800_000_000 };
const before = claims.exp * 1000 - 1;

/** Replaces the character at `i` with another of the same alphabet. */
function flip(s: string, i: number): string {
  const c = s[i]!;
  const other = /[0-9]/.test(c) ? (c === '1' ? '2' : '1') : c === 'a' ? 'b' : c === 'A' ? 'B' : 'a';
  return s.slice(0, i) + other + s.slice(i + 1);
}

describe('preview tokens', () => {
  it('round-trip: a token verifies to its claims before it expires', () => {
    const t = signPreviewToken(key, claims);
    assert.deepEqual(verifyPreviewToken(key, t, before), claims);
    assert.match(t, /^app_[a-z0-9]+\.3\.ws_[a-z0-9]+\.1800000000\.[A-Za-z0-9_-]{43}$/);
  });

  it('tampering with any field, or any single character anywhere, is refused', () => {
    const t = signPreviewToken(key, claims);
    const [app, version, ws, exp, mac] = t.split('.') as [string, string, string, string, string];
    const variants = [
      [flip(app, 6), version, ws, exp, mac],
      [app, '4', ws, exp, mac],
      [app, '2', ws, exp, mac],
      [app, version, flip(ws, 5), exp, mac],
      [app, version, ws, String(claims.exp + 3600), mac],
      [app, version, ws, exp, flip(mac, 0)],
    ];
    for (const v of variants) assert.equal(verifyPreviewToken(key, v.join('.'), before), undefined, v.join('.'));
    // Every position, including the dots and the MAC's last character (whose low bits base64url
    // decoding would otherwise ignore).
    for (let i = 0; i < t.length; i++) {
      const changed = t[i] === '.' ? t.slice(0, i) + 'x' + t.slice(i + 1) : flip(t, i);
      assert.equal(verifyPreviewToken(key, changed, before), undefined, `position ${i}`);
    }
  });

  it('a last MAC character with the same decoded bytes is still refused (one canonical form)', () => {
    const t = signPreviewToken(key, claims);
    const last = t.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const same = [...alphabet].filter((c) => c !== last && Buffer.from(t.split('.')[4]!.slice(0, -1) + c, 'base64url').equals(Buffer.from(t.split('.')[4]!, 'base64url')));
    assert.ok(same.length > 0, 'the test needs an alias of the last character');
    for (const c of same) assert.equal(verifyPreviewToken(key, t.slice(0, -1) + c, before), undefined);
  });

  it('expiry edge: valid until the last millisecond before exp, refused at exp and after', () => {
    const t = signPreviewToken(key, claims);
    assert.ok(verifyPreviewToken(key, t, claims.exp * 1000 - 1));
    assert.equal(verifyPreviewToken(key, t, claims.exp * 1000), undefined);
    assert.equal(verifyPreviewToken(key, t, claims.exp * 1000 + 3_600_000), undefined);
  });

  it('rotating the secret ends every link; the same secret keeps them', () => {
    const t = signPreviewToken(key, claims);
    assert.equal(verifyPreviewToken(previewKey('another secret, just as long as the first'), t, before), undefined);
    assert.ok(verifyPreviewToken(previewKey('a preview secret that is long enough, really'), t, before));
  });

  it('the key is bound to its purpose: the raw secret or another purpose does not verify', () => {
    const t = signPreviewToken(key, claims);
    assert.equal(verifyPreviewToken(createSecretKey(Buffer.from('a preview secret that is long enough, really')), t, before), undefined);
  });

  it('malformed tokens are refused without throwing', () => {
    const t = signPreviewToken(key, claims);
    for (const bad of ['', '.', 'a.b.c.d.e', `${t}.x`, t.split('.').slice(0, 4).join('.'), `${t}A`, t.slice(0, -1), t.replace('.3.', '.03.'), t.replace('.3.', '.-3.'), 'x'.repeat(5000), t.replace('app_', 'APP_')]) {
      assert.equal(verifyPreviewToken(key, bad, before), undefined, bad.slice(0, 80));
    }
  });

  it('refuses to sign claims it could not verify', () => {
    assert.throws(() => signPreviewToken(key, { ...claims, appId: 'app_x.y' }));
    assert.throws(() => signPreviewToken(key, { ...claims, version: 0 }));
    assert.throws(() => signPreviewToken(key, { ...claims, exp: 1.5 }));
  });
});
