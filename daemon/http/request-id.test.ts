import { test } from 'vitest';
import assert from 'node:assert/strict';
import { isValidRequestId, newRequestId } from './envelope.ts';

test('accepts the ids proxies and tracers send', () => {
  for (const id of ['abc', '0f8fad5b-d9cb-469f-a165-70867728950e', 'trace.1:span_2', 'a'.repeat(128)]) {
    assert.equal(isValidRequestId(id), true, id);
  }
});

test('refuses empty, overlong and injection-prone ids', () => {
  for (const id of ['', 'a'.repeat(129), 'a b', 'a\nb', 'a\r\nx-evil: 1', '<script>', 'é', 'a/b', 'a;b']) {
    assert.equal(isValidRequestId(id), false, JSON.stringify(id));
  }
  assert.equal(isValidRequestId(undefined), false);
  assert.equal(isValidRequestId(null), false);
});

test('generated ids are valid, req_ and 32 hex digits, and distinct across pool refills', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const id = newRequestId();
    assert.match(id, /^req_[0-9a-f]{32}$/);
    assert.equal(isValidRequestId(id), true);
    seen.add(id);
  }
  assert.equal(seen.size, 1000);
});
