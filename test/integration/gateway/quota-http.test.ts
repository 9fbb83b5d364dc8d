// Gateway quotas over HTTP at each level (workspace, member, key), under concurrent requests: the
// request limit is exact (no overshoot), the token limit overshoots by at most the calls in flight
// when it was reached; over a limit → 429 with retry-after and x-ratelimit-*. Both stores.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import type { Dialect } from '../../../core/store/types.ts';
import { json, type Person } from '../people.ts';
import { startGateway, type Gateway } from './harness.ts';

const MINUTE = 60_000;
const NONE = { requestsPerMinute: null, tokensPerMinute: null, tokensPerMonth: null };
/** The fake's default usage: 10 input + 5 output tokens per call. */
const PER_CALL = 15;

interface Quota {
  limits: Record<'workspace' | 'member' | 'key', Record<string, number | null>>;
  effective: Record<string, number | null>;
  consumed: { requestsThisMinute: number; tokensThisMinute: number; tokensThisMonth: number };
  remaining: Record<string, number | null>;
}

for (const store of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`gateway quotas over HTTP (${store})`, () => {
    let g: Gateway;
    beforeAll(async () => {
      g = await startGateway({ store });
    });
    afterAll(() => g.close());
    beforeEach(async () => {
      // A fresh minute and no limits but a generous workspace one (so headers are present).
      g.fx.clock.advance(2 * MINUTE);
      g.openai.reset();
      assert.equal((await as(g.people.owner, '/api/app/limits', json('PUT', { ...NONE, requestsPerMinute: 10_000 }))).status, 200);
      for (const p of [g.people.member, g.people.owner]) assert.equal((await as(g.people.owner, `/api/app/limits/members/${p.userId}`, json('PUT', NONE))).status, 200);
    });

    const as = (p: Person, path: string, init: RequestInit) =>
      fetch(g.base + path, { ...init, headers: { ...(init.headers as Record<string, string>), ...p.headers({ workspace: g.people.workspace }) } });
    const newKey = async (p: Person, limits?: Record<string, number>) => {
      const r = await as(p, '/api/app/keys', json('POST', { name: 'q', ...(limits ? { limits } : {}) }));
      assert.equal(r.status, 201);
      return ((await r.json()) as { token: string }).token;
    };
    const chat = (key: string) =>
      fetch(`${g.base}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
      });
    const quota = async (key: string) => (await (await fetch(`${g.base}/api/v1/quota`, { headers: { authorization: `Bearer ${key}` } })).json()) as Quota;

    /** Fires n concurrent chats; returns the responses (bodies read). */
    async function burst(key: string, n: number) {
      const all = await Promise.all(Array.from({ length: n }, () => chat(key)));
      await Promise.all(all.map((r) => r.arrayBuffer()));
      return all;
    }

    function assertExact(res: Response[], limit: number, what: string) {
      const ok = res.filter((r) => r.status === 200);
      const refused = res.filter((r) => r.status === 429);
      assert.equal(ok.length, limit, `${what}: exactly ${limit} served (statuses ${res.map((r) => r.status)})`);
      assert.equal(refused.length, res.length - limit, `${what}: the rest refused`);
      for (const r of refused) {
        const ra = Number(r.headers.get('retry-after'));
        assert.ok(Number.isInteger(ra) && ra >= 1 && ra <= 60, `retry-after ${r.headers.get('retry-after')}`);
        assert.equal(r.headers.get('x-ratelimit-limit-requests'), String(limit));
        assert.equal(r.headers.get('x-ratelimit-remaining-requests'), '0');
        assert.ok(r.headers.get('x-ratelimit-reset-requests'));
        assert.ok(r.headers.get('x-request-id'));
      }
      assert.equal(g.openai.calls, limit, `${what}: refused requests never reach the upstream`);
    }

    test('workspace level: PUT /api/app/limits; N concurrent above the limit → exactly limit served; the window moves on', async () => {
      assert.equal((await as(g.people.owner, '/api/app/limits', json('PUT', { ...NONE, requestsPerMinute: 4 }))).status, 200);
      // Two keys of two people share the workspace's allowance.
      const a = await newKey(g.people.member);
      const b = await newKey(g.people.owner);
      const res = await Promise.all([burst(a, 5), burst(b, 5)]);
      assertExact(res.flat(), 4, 'workspace');
      g.fx.clock.advance(MINUTE + 1);
      assert.equal((await chat(a)).status, 200, 'a new minute, a new allowance');
    });

    test('member level: PUT /api/app/limits/members/:userId binds all of that member\'s keys, not others', async () => {
      assert.equal((await as(g.people.owner, `/api/app/limits/members/${g.people.member.userId}`, json('PUT', { ...NONE, requestsPerMinute: 3 }))).status, 200);
      const k1 = await newKey(g.people.member);
      const k2 = await newKey(g.people.member);
      const res = await Promise.all([burst(k1, 4), burst(k2, 4)]);
      assertExact(res.flat(), 3, 'member');
      const other = await newKey(g.people.owner);
      assert.equal((await chat(other)).status, 200, 'another member is not bound by it');
    });

    test('key level: limits given at key creation; another key of the same member is unaffected', async () => {
      const key = await newKey(g.people.member, { requestsPerMinute: 5 });
      assertExact(await burst(key, 12), 5, 'key');
      assert.equal((await chat(await newKey(g.people.member))).status, 200);
      g.fx.clock.advance(30_000);
      assert.equal((await chat(key)).status, 429, 'still within the sliding minute');
      g.fx.clock.advance(31_000);
      assert.equal((await chat(key)).status, 200);
    });

    test('tokens per minute: the overshoot is bounded by the calls in flight when the limit was reached', async () => {
      const limit = 50;
      const key = await newKey(g.people.member, { tokensPerMinute: limit });
      // Sequentially: admitted while under the limit, so at most one call's tokens over it.
      const seq: number[] = [];
      for (let i = 0; i < 6; i++) seq.push((await chat(key)).status);
      assert.deepEqual(seq, [200, 200, 200, 200, 429, 429]); // 0, 15, 30, 45 < 50 admitted; 60 ≥ 50 refused
      const q = await quota(key);
      assert.equal(q.consumed.tokensThisMinute, 4 * PER_CALL);
      assert.ok(q.consumed.tokensThisMinute < limit + PER_CALL);

      // Concurrently: every call admitted at 45 tokens runs; none after.
      g.fx.clock.advance(2 * MINUTE);
      for (let i = 0; i < 3; i++) assert.equal((await chat(key)).status, 200);
      g.openai.reset();
      g.openai.script({ latencyMs: 50 });
      const inflight = 6;
      const res = await burst(key, inflight);
      g.openai.script({});
      const served = res.filter((r) => r.status === 200).length;
      const used = (await quota(key)).consumed.tokensThisMinute;
      assert.ok(used <= limit - 1 + served * PER_CALL, `used ${used}`);
      assert.ok(served <= inflight);
      const refused = await chat(key);
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get('x-ratelimit-limit-tokens'), String(limit));
      assert.equal(refused.headers.get('x-ratelimit-remaining-tokens'), '0');
    });

    test('tokens per month: refused until the month turns, whatever the minute', async () => {
      const key = await newKey(g.people.member, { tokensPerMonth: 40 });
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await chat(key)).status);
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      g.fx.clock.advance(10 * MINUTE);
      const r = await chat(key);
      assert.equal(r.status, 429);
      assert.ok(Number(r.headers.get('retry-after')) > 60, 'retry after the month turns');
      assert.equal((await quota(key)).consumed.tokensThisMonth, 3 * PER_CALL);
    });

    test('GET /api/v1/quota: each level\'s limits, the tightest as effective, and consumption', async () => {
      await as(g.people.owner, '/api/app/limits', json('PUT', { requestsPerMinute: 100, tokensPerMinute: 1000, tokensPerMonth: null }));
      await as(g.people.owner, `/api/app/limits/members/${g.people.member.userId}`, json('PUT', { requestsPerMinute: 50, tokensPerMinute: null, tokensPerMonth: 900_000 }));
      const key = await newKey(g.people.member, { requestsPerMinute: 20, tokensPerMinute: 5000 });
      for (let i = 0; i < 2; i++) assert.equal((await chat(key)).status, 200);
      const q = await quota(key);
      assert.deepEqual(q.limits.workspace, { requestsPerMinute: 100, tokensPerMinute: 1000, tokensPerMonth: null });
      assert.deepEqual(q.limits.member, { requestsPerMinute: 50, tokensPerMinute: null, tokensPerMonth: 900_000 });
      assert.deepEqual(q.limits.key, { requestsPerMinute: 20, tokensPerMinute: 5000, tokensPerMonth: null });
      assert.deepEqual(q.effective, { requestsPerMinute: 20, tokensPerMinute: 1000, tokensPerMonth: 900_000 });
      assert.equal(q.consumed.requestsThisMinute, 2);
      assert.equal(q.consumed.tokensThisMinute, 2 * PER_CALL);
      assert.equal(q.remaining.requestsPerMinute, 18);
      assert.equal(q.remaining.tokensPerMinute, 1000 - 2 * PER_CALL);
    });

    test('only admins and owners write limits; everyone in the workspace reads them', async () => {
      const body = json('PUT', { ...NONE, requestsPerMinute: 7 });
      for (const p of [g.people.viewer, g.people.member]) {
        assert.equal((await as(p, '/api/app/limits', body)).status, 403);
        assert.equal((await as(p, `/api/app/limits/members/${g.people.member.userId}`, body)).status, 403);
      }
      assert.equal((await as(g.people.outsider, '/api/app/limits', body)).status, 403);
      assert.equal((await as(g.people.admin, '/api/app/limits', body)).status, 200);
      const r = await as(g.people.viewer, '/api/app/limits', { method: 'GET' });
      assert.deepEqual(((await r.json()) as { workspace: unknown }).workspace, { ...NONE, requestsPerMinute: 7 });
      assert.equal((await as(g.people.admin, `/api/app/limits/members/${g.people.outsider.userId}`, body)).status, 404);
      assert.equal((await as(g.people.admin, '/api/app/limits', json('PUT', { requestsPerMinute: 0, tokensPerMinute: null, tokensPerMonth: null }))).status, 400);
    });
  });
}
