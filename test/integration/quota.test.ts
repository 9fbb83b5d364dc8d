import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { manualClock } from '../../core/kernel/clock.ts';
import type { Principal } from '../../core/credentials/types.ts';
import { AppError } from '../../core/kernel/errors.ts';
import { createLogger } from '../../core/kernel/log.ts';
import { LimitsStore, MISS, NO_LIMITS } from '../../core/quota/limits.ts';
import { QuotaService } from '../../core/quota/service.ts';
import { migrate } from '../../core/store/migrations.ts';
import { UsageRecorder } from '../../core/usage/recorder.ts';
import { DIALECTS, freshDb, type FreshDb } from '../helpers/stores.ts';

const principal = (over: Partial<Principal> = {}): Principal => ({
  credentialId: 'cred_a', kind: 'member', userId: 'usr_a', workspaceId: 'ws_a', scopes: [], limits: {}, expiresAt: null, ...over,
});

async function refused(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof AppError);
    return e;
  }
  assert.fail('expected a 429');
}

for (const dialect of DIALECTS) {
  describe(`quota (${dialect})`, () => {
    let f: FreshDb;
    const clock = manualClock(Date.parse('2026-03-15T12:00:00Z'));
    let limits: LimitsStore;
    let recorder: UsageRecorder;
    let quota: QuotaService;
    beforeAll(async () => {
      f = await freshDb(dialect);
      await migrate(f.db);
      const now = new Date(clock.now()).toISOString();
      await f.db.run('INSERT INTO users (id, email, name, password_hash, created_at) VALUES (?, ?, ?, ?, ?)', ['usr_a', 'a@x.io', 'A', 'x', now]);
      await f.db.run('INSERT INTO workspaces (id, name, is_operator, created_by, created_at) VALUES (?, ?, 0, ?, ?)', ['ws_a', 'W', 'usr_a', now]);
      limits = new LimitsStore({ db: f.db, clock }, NO_LIMITS, 0);
      recorder = new UsageRecorder({ db: f.db, clock, log: createLogger('silent') });
      quota = new QuotaService({ db: f.db, clock, limits, flushUsage: () => recorder.flush() });
    });
    afterAll(async () => {
      await recorder.close();
      await f.cleanup();
    });

    it('admits exactly the request limit under concurrent requests, and refusals leave no trace', async () => {
      await limits.set('ws_a', '', { ...NO_LIMITS, requestsPerMinute: 10 });
      const p = principal({ credentialId: 'cred_rpm' });
      const results = await Promise.allSettled(Array.from({ length: 50 }, () => quota.admit(p)));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 10);
      const e = (results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason as AppError;
      assert.equal(e.status, 429);
      assert.equal(e.headers!['retry-after'], '60');
      assert.equal(e.headers!['x-ratelimit-remaining-requests'], '0');
      clock.advance(60_000);
      const ok = await quota.admit(p);
      assert.equal(ok.headers['x-ratelimit-limit-requests'], '10');
      assert.equal(ok.headers['x-ratelimit-remaining-requests'], '9', 'the 40 refused requests were not counted');
      await limits.set('ws_a', '', NO_LIMITS);
      clock.advance(60_000);
    });

    it('the tightest of workspace, member and key limits applies', async () => {
      await limits.set('ws_a', '', { ...NO_LIMITS, requestsPerMinute: 100 });
      await limits.set('ws_a', 'usr_a', { ...NO_LIMITS, requestsPerMinute: 5 });
      const p = principal({ credentialId: 'cred_tight', limits: { requestsPerMinute: 3 } });
      for (let i = 0; i < 3; i++) await quota.admit(p);
      const e = await refused(quota.admit(p));
      assert.match(e.message, /key request limit \(3\/min\)/);
      const other = principal({ credentialId: 'cred_other' });
      const h = (await quota.admit(other)).headers;
      assert.equal(h['x-ratelimit-limit-requests'], '5', 'member limit is tighter than the workspace one');
      assert.equal(h['x-ratelimit-remaining-requests'], '1', 'the member already spent 4 across both keys');
      await limits.set('ws_a', '', NO_LIMITS);
      await limits.set('ws_a', 'usr_a', NO_LIMITS);
      clock.advance(60_000);
    });

    it('tokens per minute: refused once spent, overshoot bounded by calls in flight', async () => {
      await limits.set('ws_a', '', { ...NO_LIMITS, tokensPerMinute: 1000 });
      const p = principal({ credentialId: 'cred_tpm' });
      const inflight = await Promise.all([quota.admit(p), quota.admit(p), quota.admit(p)]);
      for (const a of inflight) a.settle(600);
      const e = await refused(quota.admit(p));
      assert.match(e.message, /token limit \(1000\/min\)/);
      assert.equal(e.headers!['x-ratelimit-remaining-tokens'], '0');
      clock.advance(30_000);
      await refused(quota.admit(p));
      clock.advance(30_000);
      assert.equal((await quota.admit(p)).headers['x-ratelimit-remaining-tokens'], '1000');
      await limits.set('ws_a', '', NO_LIMITS);
    });

    it('tokens per month count stored usage and refuse until the next month', async () => {
      const p = principal({ credentialId: 'cred_month', limits: { tokensPerMonth: 5000 } });
      const base = { workspaceId: 'ws_a', userId: 'usr_a', credentialId: 'cred_month', source: 'chat', provider: 'openai', accountId: 'pa_x', model: 'openai/m', status: 200, latencyMs: 1 };
      recorder.record({ ...base, inputTokens: 3000, cachedTokens: 0, outputTokens: 1000, reasoningTokens: 0, totalTokens: 4000, at: clock.now() - 86_400_000 });
      recorder.record({ ...base, inputTokens: 99, cachedTokens: 0, outputTokens: 0, reasoningTokens: 0, totalTokens: 99_999, at: Date.parse('2026-02-27T00:00:00Z') });
      const a = await quota.admit(p);
      a.settle(1000);
      const e = await refused(quota.admit(p));
      assert.match(e.message, /monthly token limit \(5000\)/);
      const view = await quota.view(p);
      assert.equal(view.consumed.tokensThisMonth, 5000, 'last month does not count');
      assert.equal(view.effective.tokensPerMonth, 5000);
      assert.equal(view.remaining.tokensPerMonth, 0);
      assert.equal(Number(e.headers!['retry-after']), (Date.parse('2026-04-01T00:00:00Z') - clock.now()) / 1000);
    });

    it('cached limits (the synchronous admission path): exact under concurrency, and a change applies at once', async () => {
      const cached = new LimitsStore({ db: f.db, clock }, NO_LIMITS, 60_000);
      const q = new QuotaService({ db: f.db, clock, limits: cached, flushUsage: () => recorder.flush() });
      await cached.set('ws_a', '', { ...NO_LIMITS, requestsPerMinute: 5 });
      const p = principal({ credentialId: 'cred_cached' });
      await q.admit(p); // the first admission reads the store and fills the cache
      assert.notEqual(cached.peek('ws_a', ''), MISS, 'the limits are cached now');
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => q.admit(p)));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 4);
      await cached.set('ws_a', '', { ...NO_LIMITS, requestsPerMinute: 8 });
      assert.equal(cached.peek('ws_a', ''), MISS, 'a write drops the cached entry');
      const more = await Promise.allSettled(Array.from({ length: 20 }, () => q.admit(p)));
      assert.equal(more.filter((r) => r.status === 'fulfilled').length, 3, 'the raised limit applies to the very next request');
      const h = (await q.headersFor(p));
      assert.equal(h['x-ratelimit-limit-requests'], '8');
      assert.equal(h['x-ratelimit-remaining-requests'], '0');
      clock.advance(60_000);
      assert.equal(cached.peek('ws_a', ''), MISS, 'the cache expires');
      await cached.set('ws_a', '', NO_LIMITS);
    });
  });
}
