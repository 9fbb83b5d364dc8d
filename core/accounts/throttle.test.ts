import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { FailureThrottle } from './throttle.ts';

const MIN = 60_000;

describe('FailureThrottle', () => {
  test('reservations in flight fill the allowance: the next one waits 1 s, not the whole window', () => {
    const t = new FailureThrottle(3, 15 * MIN);
    for (let i = 0; i < 3; i++) assert.equal(t.reserve('k', 0), 0);
    assert.equal(t.reserve('k', 0), 1000, 'nothing reserved past the limit');
    assert.equal(t.retryAfter('other', 0), 0, 'per key');
    t.settle('k', 10, false); // a success frees its place and records nothing
    assert.equal(t.reserve('k', 10), 0);
  });

  test('settled failures count for the window; successes and errors never do', () => {
    const t = new FailureThrottle(2, 15 * MIN);
    t.reserve('k', 0);
    t.reserve('k', 0);
    t.settle('k', 5, true);
    t.settle('k', 6, true);
    assert.equal(t.retryAfter('k', 100), 5 + 15 * MIN - 100);
    assert.equal(t.reserve('k', 15 * MIN + 6), 0, 'the window passed');
    t.settle('k', 15 * MIN + 7, false);
    assert.equal(t.retryAfter('k', 15 * MIN + 8), 0);
  });

  test('reset clears the failures of a key (a successful sign-in)', () => {
    const t = new FailureThrottle(1, MIN);
    t.fail('k', 0);
    assert.ok(t.retryAfter('k', 1) > 0);
    t.reset('k');
    assert.equal(t.retryAfter('k', 1), 0);
  });
});
