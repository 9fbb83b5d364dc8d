import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { Mutex } from './mutex.ts';

describe('Mutex', () => {
  it('admits one holder at a time, in arrival order', async () => {
    const m = new Mutex();
    const events: string[] = [];
    const worker = async (name: string) => {
      const release = await m.lock();
      events.push(`${name}+`);
      await sleep(2);
      events.push(`${name}-`);
      release();
    };
    await Promise.all(['a', 'b', 'c'].map(worker));
    assert.deepEqual(events, ['a+', 'a-', 'b+', 'b-', 'c+', 'c-']);
    assert.equal(m.locked, false);
  });

  it('ignores a second call of the same release function', async () => {
    const m = new Mutex();
    const r1 = await m.lock();
    const second = m.lock();
    r1();
    const r2 = await second;
    r1(); // must not release the lock r2 now holds
    assert.equal(m.locked, true);
    r2();
    assert.equal(m.locked, false);
  });

  it('whenReleased waits for the current holder and resolves at once when free', async () => {
    const m = new Mutex();
    await m.whenReleased();
    const release = await m.lock();
    let woke = false;
    const waiting = m.whenReleased().then(() => (woke = true));
    await sleep(2);
    assert.equal(woke, false);
    release();
    await waiting;
    assert.equal(woke, true);
  });
});
