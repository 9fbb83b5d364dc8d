import assert from 'node:assert/strict';
import { it } from 'vitest';
import { backoffMs } from './backoff.ts';

it('doubles from the base per retry and stops at the cap', () => {
  const d = [0, 1, 2, 3, 10].map((retries) => backoffMs({ retries, baseMs: 1000, maxMs: 5000 }));
  assert.deepEqual(d, [1000, 2000, 4000, 5000, 5000]);
});

it('counts at most maxDoublings doublings', () => {
  assert.equal(backoffMs({ retries: 2000, baseMs: 1, maxDoublings: 3 }), 8);
  assert.equal(backoffMs({ retries: 2000, baseMs: 1000, maxMs: 60_000 }), 60_000);
});

it('adds jitter after the cap, up to the given fraction', () => {
  assert.equal(backoffMs({ retries: 5, baseMs: 1000, maxMs: 4000, jitter: 0.25, random: () => 0 }), 4000);
  assert.equal(backoffMs({ retries: 5, baseMs: 1000, maxMs: 4000, jitter: 0.25, random: () => 0.999999 }), 5000);
});

it('waits at least the Retry-After, rounded to whole milliseconds', () => {
  assert.equal(backoffMs({ retries: 0, baseMs: 50, retryAfterMs: 1234.4 }), 1234);
  assert.equal(backoffMs({ retries: 0, baseMs: 50, jitter: 0.5, random: () => 0.5, retryAfterMs: 10 }), 63);
});
