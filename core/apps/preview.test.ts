import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { contentTypeOf, decodePath, FileCache, TokenMemo } from './preview.ts';
import { previewKey, signPreviewToken } from './token.ts';

describe('preview paths', () => {
  it('decodes each segment; refuses escapes in every spelling', () => {
    assert.equal(decodePath('index.html'), 'index.html');
    assert.equal(decodePath('my%20file.html'), 'my file.html');
    assert.equal(decodePath('a/b.js'), 'a/b.js');
    for (const bad of ['..', '../x', '%2e%2e/x', '%2E%2E', 'a/%2e%2e/b', 'a%2fb', 'a%2F..%2Fb', '%5c..%5cx', 'a%00b', '%zz', '/x', 'a//b', '.', './a', 'dir/']) {
      assert.equal(decodePath(bad), undefined, bad);
    }
  });
});

describe('preview file cache', () => {
  it('returns what was set until the TTL passes', () => {
    const c = new FileCache({ ttlMs: 1000 });
    c.set('k', Buffer.from('abc'), 0);
    assert.deepEqual(c.get('k', 999), Buffer.from('abc'));
    assert.equal(c.get('k', 1000), undefined);
    assert.equal(c.bytes, 0);
  });
  it('stays within its byte budget, evicting the least recently used', () => {
    const c = new FileCache({ maxBytes: 10, maxFileBytes: 10 });
    c.set('a', Buffer.alloc(4), 0);
    c.set('b', Buffer.alloc(4), 0);
    assert.ok(c.get('a', 1)); // a is now the most recently used
    c.set('c', Buffer.alloc(4), 1);
    assert.equal(c.get('b', 2), undefined);
    assert.ok(c.get('a', 2));
    assert.ok(c.get('c', 2));
    assert.equal(c.bytes, 8);
    c.set('big', Buffer.alloc(11), 3); // larger than a cached file may be: not kept
    assert.equal(c.get('big', 3), undefined);
    assert.equal(c.bytes, 8);
  });
});

describe('preview content types', () => {
  it('from the extension, case-insensitively; unknown or none is a download', () => {
    assert.equal(contentTypeOf('index.html'), 'text/html; charset=utf-8');
    assert.equal(contentTypeOf('a/B.JS'), 'text/javascript; charset=utf-8');
    assert.equal(contentTypeOf('x.svg'), 'image/svg+xml');
    assert.equal(contentTypeOf('x.png'), 'image/png');
    for (const p of ['README', 'x.exe', '.htaccess', 'dir.d/file']) assert.equal(contentTypeOf(p), 'application/octet-stream', p);
  });
});

describe('verified-token memo', () => {
  const key = previewKey('a secret for the memo test, long enough');
  const claims = { appId: 'app_0123456789abcdefghij', version: 1, workspaceId: 'ws_0123456789abcdefghij', exp: 2_000_000 };
  const token = signPreviewToken(key, claims);

  it('a remembered token still expires at exp', () => {
    const memo = new TokenMemo();
    assert.deepEqual(memo.verify(key, token, claims.exp * 1000 - 10), claims);
    assert.deepEqual(memo.verify(key, token, claims.exp * 1000 - 1), claims);
    assert.equal(memo.verify(key, token, claims.exp * 1000), undefined);
  });
  it('refused tokens are not remembered, and a full memo starts over', () => {
    const memo = new TokenMemo(2);
    const forged = token.slice(0, -2) + (token.at(-2) === 'a' ? 'b' : 'a') + token.at(-1);
    assert.equal(memo.verify(key, forged, 0), undefined);
    assert.equal(memo.verify(key, forged, 0), undefined);
    const other = (v: number) => signPreviewToken(key, { ...claims, version: v });
    for (const v of [1, 2, 3]) assert.equal(memo.verify(key, other(v), 0)?.version, v);
    assert.equal(memo.verify(key, other(1), 0)?.version, 1);
  });
});
