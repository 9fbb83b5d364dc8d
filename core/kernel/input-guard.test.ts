import assert from 'node:assert/strict';
import { test } from 'vitest';
import { checkJsonValue, MAX_JSON_DEPTH } from './input-guard.ts';

const check = (text: string) => checkJsonValue(JSON.parse(text), text);
const refused = (code: string, field?: string) => (e: { status?: number; code?: string; field?: string }) =>
  e.status === 400 && e.code === code && (field === undefined || e.field === field);

test('depth: 100 levels of arrays or objects pass, 101 are refused', () => {
  const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const objects = (n: number) => '{"a":'.repeat(n - 1) + '{}' + '}'.repeat(n - 1);
  assert.equal(MAX_JSON_DEPTH, 100);
  check(arrays(100));
  check(objects(100));
  assert.throws(() => check(arrays(101)), refused('json_too_deep'));
  assert.throws(() => check(objects(101)), refused('json_too_deep'));
  assert.throws(() => check(`{"messages":[{"content":${arrays(6000)}}]}`), refused('json_too_deep'));
  check('"a scalar"');
});

test('NUL: in a value or a key, at any depth, named by its path', () => {
  assert.throws(() => check('{"name":"a\\u0000b"}'), refused('nul_not_allowed', 'name'));
  assert.throws(() => check('{"messages":[{"role":"user","content":"x\\u0000"}]}'), refused('nul_not_allowed', 'messages.0.content'));
  assert.throws(() => check('{"a":{"\\u0000k":1}}'), (e: Error) => /contains a NUL/.test(e.message));
  assert.throws(() => check('"\\u0000"'), refused('nul_not_allowed'));
  // The six characters \u0000 written as text (an escaped backslash) are not a NUL.
  check('{"a":"\\\\u0000"}');
  check('{"a":"no nul here","b":[1,2,{"c":"\\u0001"}]}');
});
