import { test } from 'vitest';
import assert from 'node:assert/strict';
import { fieldPath, isJsonContentType } from './json-body.ts';

test('JSON content types, with parameters and +json suffixes', () => {
  for (const t of ['application/json', 'Application/JSON; charset=utf-8', 'application/merge-patch+json', ' application/json ;x=y']) {
    assert.equal(isJsonContentType(t), true, t);
  }
});

test('everything a cross-site form or a confused client sends is refused', () => {
  for (const t of [undefined, '', 'text/plain', 'text/json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp', 'application/json-seq', 'application/+json']) {
    assert.equal(isJsonContentType(t), false, String(t));
  }
});

test('field paths join with dots; the root has none', () => {
  assert.equal(fieldPath(['messages', 0, 'content']), 'messages.0.content');
  assert.equal(fieldPath([]), undefined);
});
