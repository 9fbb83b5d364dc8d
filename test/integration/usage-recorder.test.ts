import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { manualClock } from '../../core/kernel/clock.ts';
import { createLogger } from '../../core/kernel/log.ts';
import { migrate } from '../../core/store/migrations.ts';
import { UsageRecorder, type UsageEvent } from '../../core/usage/recorder.ts';
import { DIALECTS, freshDb, type FreshDb } from '../helpers/stores.ts';

const event = (n: number, at: number): UsageEvent => ({
  workspaceId: 'ws_u', userId: `usr_${n % 3}`, credentialId: n % 5 === 0 ? null : `cred_${n}`, source: 'chat', provider: 'openai',
  accountId: 'acc_u', model: `m${n % 7}`, status: 200, inputTokens: n, cachedTokens: n % 2, outputTokens: 2 * n, reasoningTokens: n % 3,
  totalTokens: 3 * n, latencyMs: n + 0.4, at,
});

for (const dialect of DIALECTS) {
  describe(`usage recorder (${dialect})`, () => {
    let f: FreshDb;
    const clock = manualClock(Date.parse('2026-03-15T12:00:00Z'));
    let recorder: UsageRecorder;
    beforeAll(async () => {
      f = await freshDb(dialect);
      await migrate(f.db);
      // A long interval: only explicit flushes and full batches write.
      recorder = new UsageRecorder({ db: f.db, clock, log: createLogger('silent') }, { intervalMs: 60_000 });
    });
    afterAll(async () => {
      await recorder.close();
      await f.cleanup();
    });

    it('writes every row of batches of any size, each exactly once and field for field', async () => {
      // Sizes around the fixed statement sizes (100, 10, 1) and the 500-row batch limit.
      const sizes = [1, 9, 10, 11, 99, 100, 101, 257, 499, 500, 501, 1234];
      let n = 0;
      for (const size of sizes) {
        for (let i = 0; i < size; i++) recorder.record(event(n++, clock.now() + n));
        await recorder.flush();
        assert.equal(recorder.pending, 0);
      }
      const rows = await f.db.all<Record<string, unknown>>('SELECT * FROM usage_events ORDER BY input_tokens');
      assert.equal(rows.length, n);
      assert.equal(new Set(rows.map((r) => r.id)).size, n, 'ids are unique');
      rows.forEach((r, i) => {
        const e = event(i, 0);
        assert.equal(Number(r.input_tokens), i);
        assert.equal(r.user_id, e.userId);
        assert.equal(r.credential_id, e.credentialId);
        assert.equal(r.model, e.model);
        assert.equal(Number(r.cached_tokens), e.cachedTokens);
        assert.equal(Number(r.output_tokens), e.outputTokens);
        assert.equal(Number(r.reasoning_tokens), e.reasoningTokens);
        assert.equal(Number(r.total_tokens), e.totalTokens);
        assert.equal(Number(r.latency_ms), Math.round(e.latencyMs));
        assert.equal(r.day, '2026-03-15');
      });
    });
  });
}
