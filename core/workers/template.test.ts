import assert from 'node:assert/strict';
import { test } from 'vitest';
import { renderTemplate } from './template.ts';

test('{{body}} inserts the raw body, every time it appears', () => {
  assert.equal(renderTemplate('Summarise: {{body}} / {{ body }}', 'a {"b"} c'), 'Summarise: a {"b"} c / a {"b"} c');
  // $ patterns in the body are not interpreted by String.replace.
  assert.equal(renderTemplate('x{{body}}y', "$& $1 $'"), "x$& $1 $'y");
});

test('{{json.path}} picks fields of a JSON body', () => {
  const body = JSON.stringify({ issue: { title: 'Crash', labels: ['bug', 'p1'], n: 3, ok: true, none: null } });
  assert.equal(renderTemplate('{{json.issue.title}}', body), 'Crash');
  assert.equal(renderTemplate('{{json.issue.labels.1}}', body), 'p1');
  assert.equal(renderTemplate('{{json.issue.labels}}', body), '["bug","p1"]');
  assert.equal(renderTemplate('{{json.issue.n}}/{{json.issue.ok}}', body), '3/true');
  assert.equal(renderTemplate('[{{json.issue.none}}][{{json.issue.missing.deep}}]', body), '[][]');
});

test('non-JSON bodies give empty json fields; prototype names are not reachable', () => {
  assert.equal(renderTemplate('<{{json.a}}>', 'plain text'), '<>');
  assert.equal(renderTemplate('<{{json.constructor}}><{{json.a.__proto__}}>', '{"a":{}}'), '<><>');
});

test('unknown placeholders stay as written', () => {
  assert.equal(renderTemplate('{{other}} {{json}} {{ body.x }}', 'b'), '{{other}} {{json}} {{ body.x }}');
});

test('a JSON body nested past 100 levels is refused (400 json_too_deep), not a stack overflow', () => {
  const deep = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
  assert.equal(renderTemplate('<{{json.a.a}}>', deep(100)).length > 2, true, '100 levels: rendered');
  assert.throws(() => renderTemplate('<{{json.a}}>', deep(6000)), (e: { status?: number; code?: string }) => e.status === 400 && e.code === 'json_too_deep');
  // The raw body is only text: {{body}} alone never parses it.
  assert.equal(renderTemplate('{{body}}', deep(6000)).length, deep(6000).length);
});
