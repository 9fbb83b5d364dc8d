// The run-start limiter's statements on both stores: the window, the per-key drop and the prune.
import assert from 'node:assert/strict';
import { beforeAll, test } from 'vitest';
import { forEachStore } from '../../../test/helpers/stores.ts';
import { migrate } from '../../store/migrations.ts';
import { dropHitsUpTo, hitWindow, insertHit, lockKey, pruneRateLimitHits } from './ratelimit.ts';

const at = (s: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, s)).toISOString();

forEachStore('rate-limit repo', (get) => {
  beforeAll(async () => {
    await migrate(get().db);
  });

  test('hits are counted per key with the oldest; older ones are dropped and pruned', async () => {
    const { db } = get();
    await db.tx(async (q) => {
      await lockKey(q, 'k1');
      for (const s of [1, 2, 3]) await insertHit(q, 'k1', at(s));
      await insertHit(q, 'k2', at(1));
    });
    const w = await hitWindow(db, 'k1');
    assert.deepEqual([Number(w?.n), w?.oldest], [3, at(1)]);
    await dropHitsUpTo(db, 'k1', at(2));
    const after = await hitWindow(db, 'k1');
    assert.deepEqual([Number(after?.n), after?.oldest], [1, at(3)]);
    assert.equal(Number((await hitWindow(db, 'k2'))?.n), 1);
    assert.equal(await pruneRateLimitHits(db, at(2)), 1); // k2's hit at 1 s
    assert.equal(await pruneRateLimitHits(db, at(2)), 0);
  });
});
