import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { formatReset, SlidingWindow } from './window.ts';

describe('SlidingWindow', () => {
  it('counts within the last minute only', () => {
    const w = new SlidingWindow();
    w.add(0);
    w.add(30_000, 5);
    assert.equal(w.total(59_999), 6);
    assert.equal(w.total(60_000), 5, 'the first entry leaves exactly at 60 s');
    assert.equal(w.total(90_000), 0);
  });
  it('answers how long until the total drops to a target', () => {
    const w = new SlidingWindow();
    w.add(0, 10);
    w.add(10_000, 10);
    assert.equal(w.msUntilAtMost(20_000, 10), 40_000);
    assert.equal(w.msUntilAtMost(20_000, 0), 50_000);
    assert.equal(w.msUntilAtMost(20_000, 25), 0);
    assert.equal(w.msUntilEmpty(20_000), 50_000);
  });
  it('merges entries of the same millisecond without changing any answer', () => {
    const w = new SlidingWindow();
    for (let i = 0; i < 1000; i++) w.add(5, 2);
    w.add(6);
    assert.equal(w.total(6), 2001);
    assert.equal(w.msUntilAtMost(6, 1), 60_000 - 1, 'the merged ms leaves the window as one');
    assert.equal(w.total(60_005), 1, 'the whole merged ms left at exactly 60 s');
    assert.equal(w.total(60_006), 0);
    assert.equal(w.entries(), 0);
  });
  it('keeps one entry per distinct millisecond at most', () => {
    const w = new SlidingWindow();
    for (let t = 0; t < 10_000; t++) for (let k = 0; k < 8; k++) w.add(t);
    assert.equal(w.entries(), 10_000);
    assert.equal(w.total(9_999), 80_000);
  });
  it('an entry added after the merged one left the window starts afresh', () => {
    const w = new SlidingWindow(1000);
    w.add(0, 3);
    assert.equal(w.total(1000), 0);
    w.add(1000, 4);
    assert.equal(w.total(1000), 4);
  });
  it('stays bounded over many entries', () => {
    const w = new SlidingWindow(1000);
    for (let t = 0; t < 100_000; t++) w.add(t);
    assert.equal(w.total(100_000), 999);
  });
});

describe('formatReset', () => {
  for (const [ms, s] of [[0, '0s'], [20, '20ms'], [1000, '1s'], [1001, '2s'], [360_000, '6m0s'], [3_723_000, '1h2m3s']] as const) {
    it(`${ms} → ${s}`, () => assert.equal(formatReset(ms), s));
  }
});
