import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { contentTypeOf, decodePath, FileCache } from './preview.ts';

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
