// Usage accounting over HTTP: a row for every served call (non-streamed, streamed, abandoned
// streams, embeddings, failures), the /api/v1/usage summary by day and model with the token
// splits, scope=key, and a graceful shutdown that writes every batched row. Both stores.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import OpenAI from 'openai';
import { openDb } from '../../../core/store/index.ts';
import type { Dialect } from '../../../core/store/types.ts';
import { json } from '../people.ts';
import { startGateway, type Gateway } from './harness.ts';

const DAY = 86_400_000;

interface UsageRow {
  day: string;
  model: string;
  requests: number;
  input_tokens: number;
  cached_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  total_tokens: number;
}
interface Usage {
  scope: string;
  from: string;
  to: string;
  totals: Omit<UsageRow, 'day' | 'model'>;
  data: UsageRow[];
}
interface EventRow {
  model: string;
  source: string;
  status: number;
  input_tokens: number;
  cached_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  total_tokens: number;
  credential_id: string;
}

const user = [{ role: 'user' as const, content: 'hello' }];

for (const store of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`gateway usage over HTTP (${store})`, () => {
    let g: Gateway;
    let sdk: OpenAI;
    beforeAll(async () => {
      g = await startGateway({ store, services: { gateway: { usageFlushMs: 3_600_000 } } });
      sdk = g.sdk();
    });
    afterAll(() => g.close());
    beforeEach(async () => {
      g.openai.reset();
      g.anthropic.reset();
      await g.services.gateway.usage.flush();
      await g.core.db.run('DELETE FROM usage_events', []);
    });

    const events = async () => {
      await g.services.gateway.usage.flush();
      return (await g.core.db.all<EventRow>(
        'SELECT model, source, status, input_tokens, cached_tokens, output_tokens, reasoning_tokens, total_tokens, credential_id FROM usage_events ORDER BY created_at, id',
        [],
      )).map((r) => ({ ...r, status: Number(r.status), input_tokens: Number(r.input_tokens), cached_tokens: Number(r.cached_tokens), output_tokens: Number(r.output_tokens), reasoning_tokens: Number(r.reasoning_tokens), total_tokens: Number(r.total_tokens) }));
    };
    const usage = async (key: string, query = '') => {
      const r = await fetch(`${g.base}/api/v1/usage${query}`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(r.status, 200);
      return (await r.json()) as Usage;
    };

    test('a row per call, with the token splits: chat, stream, responses, embeddings, failure', async () => {
      g.openai.once({ usage: { input: 6, cached: 4, output: 5, reasoning: 2 } });
      await sdk.chat.completions.create({ model: 'fake/gpt-test', messages: user });
      g.anthropic.once({ text: 'a b c', usage: { input: 8, cached: 5, cacheCreation: 2, output: 6 } });
      for await (const _ of await sdk.chat.completions.create({ model: 'claude/claude-test', messages: user, stream: true }));
      g.openai.once({ usage: { input: 3, output: 2 } });
      await sdk.responses.stream({ model: 'fake/gpt-test', input: 'hi' }).finalResponse();
      await sdk.embeddings.create({ model: 'fake/text-embed', input: ['one two', 'three'] });
      g.openai.once({ fault: '5xx' });
      await assert.rejects(sdk.chat.completions.create({ model: 'fake/gpt-test', messages: user }), (e) => e instanceof OpenAI.APIError && e.status === 502);
      // Refused before any call: not a served request, no row.
      await assert.rejects(sdk.chat.completions.create({ model: 'fake/nope', messages: user }));

      const rows = await events();
      const pick = (r: EventRow) => [r.model, r.source, r.status, r.input_tokens, r.cached_tokens, r.output_tokens, r.reasoning_tokens, r.total_tokens];
      // One clock tick for all: compare in a fixed order.
      assert.deepEqual(rows.map(pick).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))), [
        ['claude/claude-test', 'chat', 200, 15, 5, 6, 0, 21],
        ['fake/gpt-test', 'chat', 200, 10, 4, 5, 2, 15],
        ['fake/gpt-test', 'chat', 502, 0, 0, 0, 0, 0],
        ['fake/gpt-test', 'responses', 200, 3, 0, 2, 0, 5],
        ['fake/text-embed', 'embeddings', 200, 3, 0, 0, 0, 3],
      ]);
    });

    test('an abandoned stream still gets its row (status 499) once the client leaves', async () => {
      g.anthropic.once({ text: Array.from({ length: 100 }, (_, i) => `w${i} `).join(''), chunkDelayMs: 20, usage: { input: 9 } });
      const ac = new AbortController();
      let n = 0;
      for await (const _ of await sdk.chat.completions.create({ model: 'claude/claude-test', messages: user, stream: true }, { signal: ac.signal })) if (++n === 3) ac.abort();
      let rows: EventRow[] = [];
      for (let i = 0; i < 100 && rows.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 20));
        rows = await events();
      }
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.status, 499);
      // Anthropic reports input usage in message_start, before any text: it is kept.
      assert.equal(rows[0]!.input_tokens, 9);
    });

    test('GET /api/v1/usage: by day and model with the splits and totals; scope=key; from/to', async () => {
      const day1 = new Date(g.fx.clock.now()).toISOString().slice(0, 10);
      g.openai.script({ usage: { input: 6, cached: 4, output: 5, reasoning: 2 } });
      await sdk.chat.completions.create({ model: 'fake/gpt-test', messages: user });
      await sdk.chat.completions.create({ model: 'fake/gpt-test', messages: user });
      await sdk.chat.completions.create({ model: 'claude/claude-test', messages: user });
      g.fx.clock.advance(DAY);
      const day2 = new Date(g.fx.clock.now()).toISOString().slice(0, 10);
      const token = async (res: Response | Promise<Response>) => ((await (await res).json()) as { token: string }).token;
      // A second key of the same member, and a key of another member (the owner).
      const key2 = await token(fetch(`${g.base}/api/app/keys`, json('POST', { name: 'second' }, g.people.member.headers({ workspace: g.people.workspace }))));
      const ownerKey = await token(g.app('/api/app/keys', json('POST', { name: 'owner' })));
      await g.sdk(key2).chat.completions.create({ model: 'fake/gpt-test', messages: user });
      await g.sdk(ownerKey).chat.completions.create({ model: 'fake/gpt-test', messages: user });
      g.openai.script({});

      const u = await usage(g.memberKey);
      assert.equal(u.scope, 'member');
      assert.equal(u.to, day2);
      const per = { input_tokens: 10, cached_tokens: 4, output_tokens: 5, reasoning_tokens: 2, total_tokens: 15 };
      assert.deepEqual(u.data, [
        { day: day1, model: 'claude/claude-test', requests: 1, input_tokens: 10, cached_tokens: 0, output_tokens: 5, reasoning_tokens: 0, total_tokens: 15 },
        { day: day1, model: 'fake/gpt-test', requests: 2, input_tokens: 20, cached_tokens: 8, output_tokens: 10, reasoning_tokens: 4, total_tokens: 30 },
        { day: day2, model: 'fake/gpt-test', requests: 1, ...per },
      ], 'the owner\'s call is not in the member\'s usage');
      assert.deepEqual(u.totals, { requests: 4, input_tokens: 40, cached_tokens: 12, output_tokens: 20, reasoning_tokens: 6, total_tokens: 60 });

      const k = await usage(key2, '?scope=key');
      assert.equal(k.scope, 'key');
      assert.deepEqual(k.data, [{ day: day2, model: 'fake/gpt-test', requests: 1, ...per }]);
      const d1 = await usage(g.memberKey, `?from=${day1}&to=${day1}`);
      assert.equal(d1.totals.requests, 3);

      for (const q of ['?scope=workspace', '?from=yesterday', `?from=${day2}&to=${day1}`]) {
        const bad = await fetch(`${g.base}/api/v1/usage${q}`, { headers: { authorization: `Bearer ${g.memberKey}` } });
        assert.equal(bad.status, 400, q);
      }
    });

    test('reads its own writes: rows still batched in memory are counted', async () => {
      await sdk.chat.completions.create({ model: 'fake/gpt-test', messages: user });
      assert.ok(g.services.gateway.usage.pending > 0, 'the row is batched, not written on the response path');
      assert.equal((await usage(g.memberKey)).totals.requests, 1);
    });
  });

  describe(`graceful shutdown writes every batched usage row (${store})`, () => {
    test('calls, then core.close() → all rows in the store, read back through a new connection', async () => {
      const g = await startGateway({ store, services: { gateway: { usageFlushMs: 3_600_000 } } });
      try {
        const sdk = g.sdk();
        const N = 7;
        await Promise.all(Array.from({ length: N }, () => sdk.chat.completions.create({ model: 'fake/gpt-test', messages: user })));
        for await (const _ of await sdk.chat.completions.create({ model: 'claude/claude-test', messages: user, stream: true }));
        await sdk.embeddings.create({ model: 'fake/text-embed', input: 'x' });
        // Nothing was written yet (the flush interval is an hour).
        const written = await g.core.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM usage_events', []);
        assert.equal(Number(written?.n), 0);
        assert.equal(g.services.gateway.usage.pending, N + 2);
        await g.core.close();
        const db = await openDb(g.core.config);
        try {
          const r = await db.one<{ n: number; t: number }>('SELECT COUNT(*) AS n, SUM(total_tokens) AS t FROM usage_events', []);
          assert.equal(Number(r?.n), N + 2);
          assert.equal(Number(r?.t), N * 15 + 15 + 1);
        } finally {
          await db.close();
        }
      } finally {
        await g.close();
      }
    });
  });
}
