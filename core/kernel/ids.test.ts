import assert from 'node:assert/strict';
import { test } from 'vitest';
import { ID_PATTERN, newId, newTimeId, randomPoolBytes } from './ids.ts';

test('newId: prefixed, 20 base-36 characters, no repeats over many draws (the byte pool refills)', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 5000; i++) {
    const id = newId('run');
    assert.match(id, ID_PATTERN);
    assert.ok(id.startsWith('run_'));
    seen.add(id);
  }
  assert.equal(seen.size, 5000);
});

test('newId: every base-36 character turns up in every position (uniform alphabet, no stuck bytes)', () => {
  const perPos = Array.from({ length: 20 }, () => new Set<string>());
  for (let i = 0; i < 3000; i++) [...newId('x').slice(2)].forEach((c, p) => perPos[p]!.add(c));
  for (const s of perPos) assert.equal(s.size, 36);
});

test('newTimeId: same shape as newId, sorts by its millisecond, unique within one millisecond', () => {
  const t = Date.parse('2026-11-22T03:00:00.000Z');
  const a = newTimeId('run', t);
  const b = newTimeId('run', t + 1);
  const c = newTimeId('run', t + 86_400_000);
  for (const id of [a, b, c]) assert.match(id, ID_PATTERN);
  assert.ok(a < b && b < c, `${a} < ${b} < ${c}`);
  assert.equal(a.slice(4, 13), t.toString(36).padStart(9, '0'));
  const same = new Set(Array.from({ length: 5000 }, () => newTimeId('run', t)));
  assert.equal(same.size, 5000);
});

test('randomPoolBytes: consecutive takes never share bytes, across a refill too', () => {
  const takes = Array.from({ length: 600 }, () => Buffer.from(randomPoolBytes(16)).toString('hex'));
  assert.equal(new Set(takes).size, takes.length);
});
