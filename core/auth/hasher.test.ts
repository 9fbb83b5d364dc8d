import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { setImmediate as tick } from 'node:timers/promises';
import { isAppError } from '../kernel/errors.ts';
import { boundedHasher } from './hasher.ts';

const FAST = { N: 1024, r: 8, p: 1 };

/** An impl whose calls finish only when the test says so, recording what runs when. */
function gated() {
  const started: string[] = [];
  const gates: Array<() => void> = [];
  let running = 0;
  let most = 0;
  const enter = (label: string) =>
    new Promise<void>((resolve) => {
      started.push(label);
      running++;
      most = Math.max(most, running);
      gates.push(() => {
        running--;
        resolve();
      });
    });
  return {
    started,
    get running() {
      return running;
    },
    get most() {
      return most;
    },
    /** Lets the oldest running call finish. */
    finishOne: () => gates.shift()!(),
    impl: {
      hash: async (p: string) => (await enter(`hash:${p}`), `h:${p}`),
      verify: async (p: string) => (await enter(`verify:${p}`), true),
    },
  };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await tick();
}

describe('boundedHasher', () => {
  test('never runs more than `concurrency` hashes at once, however many arrive together', async () => {
    const g = gated();
    const h = boundedHasher({ impl: g.impl, concurrency: 2, maxWaiting: 100 });
    const all = Promise.all(Array.from({ length: 20 }, (_, i) => h.hash(`p${i}`)));
    for (let done = 0; done < 20; done++) {
      await settle();
      assert.ok(g.running <= 2, `running ${g.running}`);
      g.finishOne();
    }
    assert.equal((await all).length, 20);
    assert.equal(g.most, 2);
  });

  test('sign-in verifications run before waiting sign-up hashes', async () => {
    const g = gated();
    const h = boundedHasher({ impl: g.impl, concurrency: 1, maxWaiting: 100 });
    const work: Promise<unknown>[] = [h.hash('a'), h.hash('b'), h.hash('c')];
    await settle();
    work.push(h.verify('login', 'stored'));
    for (let i = 0; i < 4; i++) {
      await settle();
      g.finishOne();
    }
    await Promise.all(work);
    assert.deepEqual(g.started, ['hash:a', 'verify:login', 'hash:b', 'hash:c']);
  });

  test('beyond maxWaiting queued hashes, a new one is refused at once with 503 auth_busy', async () => {
    const g = gated();
    const h = boundedHasher({ impl: g.impl, concurrency: 1, maxWaiting: 3 });
    const accepted = [h.hash('1'), h.hash('2'), h.hash('3'), h.hash('4')]; // one running, three waiting
    await settle();
    const refused = await h.verify('5', 's').then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(isAppError(refused));
    assert.equal(refused.status, 503);
    assert.equal(refused.code, 'auth_busy');
    assert.equal(refused.headers?.['Retry-After'], '2');
    assert.deepEqual(g.started, ['hash:1'], 'the refused one never ran');
    for (let i = 0; i < 4; i++) {
      await settle();
      g.finishOne();
    }
    assert.deepEqual(await Promise.all(accepted), ['h:1', 'h:2', 'h:3', 'h:4']);
  });

  test('the default impl is scrypt: a hash verifies, a wrong password does not', async () => {
    const h = boundedHasher({ cost: FAST });
    const stored = await h.hash('correct horse');
    assert.match(stored, /^scrypt\$1024\$8\$1\$/);
    assert.equal(await h.verify('correct horse', stored), true);
    assert.equal(await h.verify('wrong horse', stored), false);
  });
});
