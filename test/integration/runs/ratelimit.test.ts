// Run-start rate limit (SPEC "Limits", DESIGN "Agents and runs"), on SQLite and PostgreSQL: per user,
// sliding minute of RATE_LIMIT_CHAT_PER_MINUTE starts, X-RateLimit-* on every start, 429 with
// Retry-After over it, exact under concurrent starts, reads and lists never limited, an allowance
// separate from chat's.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import type { Dialect } from '../../../core/store/types.ts';
import { MINUTE, startRuns, type Res, type RunsEnv } from './setup.ts';

const LIMIT = 5;

for (const store of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`run start rate limit (${store})`, () => {
    let r: RunsEnv;
    let member: string;
    let admin: string;
    let agentId: string;

    beforeAll(async () => {
      r = await startRuns({ store, env: { RATE_LIMIT_CHAT_PER_MINUTE: String(LIMIT) } });
      member = await r.token(r.g.people.member);
      admin = await r.token(r.g.people.admin);
      agentId = await r.agent(r.g.people.member);
      assert.equal((await r.app(r.g.people.member, 'POST', `/api/app/agents/${agentId}/shares`, { workspace: true })).status, 200);
    });
    afterAll(() => r.close());
    beforeEach(() => {
      r.g.fx.clock.advance(2 * MINUTE); // a fresh window for every test
      r.g.openai.reset();
    });

    const headers = (res: Res) => ({
      limit: res.headers.get('x-ratelimit-limit'),
      remaining: res.headers.get('x-ratelimit-remaining'),
      reset: Number(res.headers.get('x-ratelimit-reset')),
    });

    test('headers on every start (201, 400 stale target, 404), 429 with Retry-After past the limit, the window slides', async () => {
      const seen: Res[] = [];
      seen.push(await r.start(member, agentId));
      seen.push(await r.start(member, 'agt_00000000000000000000')); // 404 still counts a start attempt
      r.g.fx.clock.advance(10_000);
      for (let i = 0; i < LIMIT - 2; i++) seen.push(await r.start(member, agentId));
      assert.deepEqual(seen.map((s) => s.status), [201, 404, 201, 201, 201]);
      seen.forEach((s, i) => {
        const h = headers(s);
        assert.equal(h.limit, String(LIMIT), `start ${i}`);
        assert.equal(h.remaining, String(LIMIT - 1 - i), `start ${i}`);
        assert.ok(Number.isInteger(h.reset) && h.reset >= 1 && h.reset <= 60, `start ${i}: reset ${h.reset}`);
      });

      const over = await r.start(member, agentId);
      assert.equal(over.status, 429, over.text);
      assert.equal(over.body.error.code, 'rate_limited');
      assert.equal(headers(over).remaining, '0');
      assert.equal(headers(over).limit, String(LIMIT));
      // The oldest start (10 s before the others) leaves the window in 50 s.
      assert.equal(over.headers.get('retry-after'), '50');
      assert.equal(headers(over).reset, 50);
      assert.equal(r.g.openai.calls, LIMIT - 1, 'a refused start never reaches the model');

      // Another user has their own allowance.
      assert.equal((await r.start(admin, agentId)).status, 201);

      r.g.fx.clock.advance(50_000); // the first two starts leave the window
      const a = await r.start(member, agentId);
      assert.equal(a.status, 201, a.text);
      assert.equal(headers(a).remaining, '1');
      assert.equal((await r.start(member, agentId)).status, 201);
      assert.equal((await r.start(member, agentId)).status, 429);
    });

    test(`exact under concurrency: ${LIMIT + 10} concurrent starts → exactly ${LIMIT} accepted`, async () => {
      r.g.openai.script({ text: 'ok', latencyMs: 5 });
      const all = await Promise.all(Array.from({ length: LIMIT + 10 }, (_, i) => r.start(member, agentId, { inputText: `burst ${i}` })));
      const ok = all.filter((x) => x.status === 201);
      const refused = all.filter((x) => x.status === 429);
      assert.equal(ok.length, LIMIT, `statuses ${all.map((x) => x.status)}`);
      assert.equal(refused.length, 10);
      for (const x of refused) {
        assert.ok(Number(x.headers.get('retry-after')) >= 1);
        assert.equal(headers(x).remaining, '0');
      }
      const remaining = ok.map((x) => Number(headers(x).remaining)).sort();
      assert.deepEqual(remaining, [0, 1, 2, 3, 4], 'each accepted start saw a distinct count');
      assert.equal(r.g.openai.calls, LIMIT);
      for (const x of ok) assert.equal(x.body.status, 'completed');
      // The start's hit is taken in the transaction that writes the run: a 429 rolls the run back.
      const runs = await r.g.core.db.one<{ n: number | string }>("SELECT COUNT(*) AS n FROM runs WHERE input_text LIKE 'burst %'");
      assert.equal(Number(runs!.n), LIMIT, 'a refused start leaves no run behind');
    });

    test('reads and lists are not rate limited', async () => {
      const first = await r.start(member, agentId);
      for (let i = 1; i < LIMIT; i++) assert.equal((await r.start(member, agentId)).status, 201);
      assert.equal((await r.start(member, agentId)).status, 429);
      for (let i = 0; i < 3 * LIMIT; i++) {
        const read = await r.read(member, agentId, first.body.runId);
        assert.equal(read.status, 200);
        assert.equal(read.headers.get('x-ratelimit-remaining'), null, 'reads carry no start allowance');
        const l = await r.list(member, agentId);
        assert.equal(l.status, 200, l.text + JSON.stringify(r.g.fx.logs.filter((x) => x.level === 'error').slice(-1)));
      }
    });

    test('a separate allowance from chat: exhausting run starts leaves /api/v1 chat untouched', async () => {
      for (let i = 0; i < LIMIT; i++) assert.equal((await r.start(member, agentId)).status, 201);
      assert.equal((await r.start(member, agentId)).status, 429);
      const chat = await fetch(`${r.g.base}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${r.g.memberKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(chat.status, 200, await chat.text());
    });

    test('chat has its own per-user allowance of the same size, and spending it leaves run starts untouched', async () => {
      r.g.fx.clock.advance(61_000);
      const chat = () =>
        fetch(`${r.g.base}/api/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${r.g.memberKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
        });
      const first = await chat();
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('x-ratelimit-limit-requests'), String(LIMIT), 'the member default is RATE_LIMIT_CHAT_PER_MINUTE');
      for (let i = 1; i < LIMIT; i++) assert.equal((await chat()).status, 200);
      const over = await chat();
      assert.equal(over.status, 429);
      assert.ok(Number(over.headers.get('retry-after')) > 0);
      assert.equal((await r.start(member, agentId)).status, 201, 'run starts have their own allowance');
    });
  });
}
