import { test } from 'vitest';
import assert from 'node:assert/strict';
import { redactPath } from './redact-path.ts';

test('share tokens keep only their first 4 characters', () => {
  assert.equal(redactPath('/api/public/share/shr_abcdefghijkl'), '/api/public/share/shr_…');
  assert.equal(redactPath('/api/public/share/abcdefgh/extra'), '/api/public/share/abcd…/extr…');
});

test('webhook tokens are cut after the fixed route name', () => {
  assert.equal(redactPath('/api/public/webhooks/workers/whk_secret123'), '/api/public/webhooks/workers/whk_…');
  assert.equal(redactPath('/api/public/webhooks/agents/tok_secret123'), '/api/public/webhooks/agents/tok_…');
});

test('invitation-email is a route name, not a token', () => {
  assert.equal(redactPath('/api/public/webhooks/invitation-email'), '/api/public/webhooks/invitation-email');
});

test('an unknown segment under webhooks is treated as a token', () => {
  assert.equal(redactPath('/api/public/webhooks/s3cr3tvalue'), '/api/public/webhooks/s3cr…');
});

test('case and doubled slashes do not defeat redaction', () => {
  assert.equal(redactPath('/API/Public//share/abcdefgh'), '/API/Public//share/abcd…');
  assert.equal(redactPath('/api/public/webhooks/Workers/abcdefgh'), '/api/public/webhooks/Workers/abcd…');
});

test('short segments never come out longer than 4 characters plus the ellipsis', () => {
  assert.equal(redactPath('/api/public/share/ab'), '/api/public/share/ab…');
});

test('preview tokens keep only their first 4 characters, and the file path after them is cut too', () => {
  assert.equal(redactPath('/p/app_abcdefgh.1.ws_x.1700000000.mac/index.html'), '/p/app_…/inde…');
  assert.equal(redactPath('/P//app_abcdefgh/a/b.js'), '/P//app_…/a…/b.js…');
});

test('other paths are untouched', () => {
  for (const p of ['/api/health', '/api/public', '/api/public/share', '/api/app/shares/abcdefgh', '/api/v1/models', '/', '', '/pp/abcdefgh', '/api/p/abcdefgh']) {
    assert.equal(redactPath(p), p);
  }
});

test('percent-encoding cannot hide a credential path: redaction runs on the decoded path (issue 12, item 8)', () => {
  const cases: [string, string][] = [
    ['/api%2Fpublic/share/shr_abcdefghijkl', '/api/public/share/shr_…'],
    ['/api%2fpublic%2fshare%2fshr_abcdefghijkl', '/api/public/share/shr_…'],
    ['/api/public/%73hare/shr_abcdefghijkl', '/api/public/share/shr_…'],
    ['/api/public/webhooks%2Fworkers%2Fwhk_secret123', '/api/public/webhooks/workers/whk_…'],
    ['/%61pi/public/webhooks/agents/tok_secret123', '/api/public/webhooks/agents/tok_…'],
    ['/api%252Fpublic/share/shr_abcdefghijkl', '/api/public/share/shr_…'], // encoded twice
    ['/api/public/share/shr_abc%2Fdefghijkl', '/api/public/share/shr_…'],
    ['/api/public/share/shr_abcdefghijkl%', '/api/public/share/shr_…'], // malformed escape
    ['/api\\public\\share\\shr_abcdefghijkl', '/api/public/share/shr_…'], // backslashes, as WHATWG URLs read them
  ];
  for (const [path, want] of cases) {
    const got = redactPath(path);
    assert.equal(got, want, path);
    assert.ok(!got.includes('abcdefghijkl') && !got.includes('secret123'), path);
  }
});

test('an encoded path that is not a credential path is logged as it came', () => {
  for (const p of ['/api/app/agents%2Fx', '/api/v1/models/gpt%20x', '/api/v1/models/%ZZ']) assert.equal(redactPath(p), p);
});
