// Upstream faults through the gateway, for each wire protocol: a failure after the request may
// have reached the provider is never retried; only provable no-work failures (connection refused,
// 429 with a short Retry-After) are retried or fall back to the next conduit candidate.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import OpenAI from 'openai';
import { refusingUrl, type FakeUpstream } from '../../helpers/fake-upstream.ts';
import { json } from '../people.ts';
import { startGateway, type Gateway } from './harness.ts';

async function sdkError(p: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof OpenAI.APIError, `expected an APIError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected the call to fail');
}

const within = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([p, new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`timed out: ${what}`)), ms).unref())]);

const user = (content = 'hello'): OpenAI.ChatCompletionMessageParam[] => [{ role: 'user', content }];

describe('upstream faults through the gateway', () => {
  let g: Gateway;
  let sdk: OpenAI;
  let deadModel: string;
  beforeAll(async () => {
    g = await startGateway();
    sdk = g.sdk();
    const r = await g.app('/api/app/provider-accounts', json('POST', { provider: 'openai-compatible', name: 'Dead', slug: 'dead', baseUrl: await refusingUrl(), models: ['m'] }));
    assert.equal(r.status, 201);
    deadModel = 'dead/m';
  });
  afterAll(() => g.close());
  beforeEach(() => {
    g.openai.reset();
    g.anthropic.reset();
  });

  const usageRows = async (model: string) => {
    await g.services.gateway.usage.flush();
    return g.core.db.all<{ status: number; total_tokens: number; input_tokens: number }>('SELECT status, total_tokens, input_tokens FROM usage_events WHERE model = ? ORDER BY created_at', [model]);
  };

  for (const [name, model, fake] of [
    ['openai-compatible', 'fake/gpt-test', () => g.openai],
    ['anthropic', 'claude/claude-test', () => g.anthropic],
  ] as const) {
    describe(name, () => {
      let up: FakeUpstream;
      beforeEach(() => (up = fake()));

      test('5xx → a 502 to the client after exactly one upstream call', async () => {
        up.once({ fault: '5xx' });
        const e = await sdkError(sdk.chat.completions.create({ model, messages: user() }));
        assert.equal(e.status, 502);
        assert.equal(e.code, 'upstream_error');
        assert.equal(up.calls, 1, 'a 5xx may have done work: never retried');
      });

      test('reset mid-response (non-streamed) → 502, not retried', async () => {
        up.once({ fault: 'reset' });
        const e = await sdkError(sdk.chat.completions.create({ model, messages: user() }));
        assert.equal(e.status, 502);
        assert.equal(e.code, 'upstream_connection_reset');
        assert.equal(up.calls, 1);
      });

      test('reset mid-stream → the client stream ends with an error event after the first chunks, not retried', async () => {
        // Past the protocol's preamble (Anthropic: message_start, ping, content_block_start).
        up.once({ text: 'a b c d e f', fault: 'reset', afterChunks: name === 'anthropic' ? 5 : 3, chunkDelayMs: 5 });
        const stream = await sdk.chat.completions.create({ model, messages: user(), stream: true });
        let text = '';
        const e = await sdkError(
          (async () => {
            for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
          })(),
        );
        assert.ok(text.length > 0, 'chunks before the reset reached the client');
        assert.match(e.message, /upstream/i);
        assert.equal(up.calls, 1);
      });

      test('in-stream error event from the upstream → the client stream ends with an error event', async () => {
        up.once({ text: 'a b c d', fault: 'stream-error', afterChunks: 2 });
        const res = await fetch(`${g.base}/api/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${g.memberKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model, stream: true, messages: user() }),
        });
        const text = await res.text();
        assert.match(text, /data: \{"error":\{/);
        assert.ok(!text.includes('[DONE]'), 'a broken stream does not claim to be complete');
        assert.equal(up.calls, 1);
      });

      test('429 with retry-after ≤ 2 s → retried once, and the second answer is served', async () => {
        up.once({ fault: '429', retryAfter: '1' });
        up.once({ text: 'second time lucky' });
        const t0 = Date.now();
        const r = await sdk.chat.completions.create({ model, messages: user() });
        assert.equal(r.choices[0]!.message.content, 'second time lucky');
        assert.equal(up.calls, 2);
        assert.ok(Date.now() - t0 >= 900, 'the Retry-After was honoured');
      });

      test('429 with a long retry-after → not waited for: 429 to the client with retry-after', async () => {
        up.once({ fault: '429', retryAfter: '30' });
        const e = await sdkError(sdk.chat.completions.create({ model, messages: user() }));
        assert.ok(e instanceof OpenAI.RateLimitError);
        assert.equal((e.headers as Headers).get('retry-after'), '30');
        assert.equal(up.calls, 1);
      });

      test('slow first byte (non-streamed and streamed) is served', async () => {
        up.once({ text: 'slow but fine', latencyMs: 300 });
        const r = await sdk.chat.completions.create({ model, messages: user() });
        assert.equal(r.choices[0]!.message.content, 'slow but fine');
        up.once({ text: 'slow stream', latencyMs: 300 });
        let text = '';
        for await (const c of await sdk.chat.completions.create({ model, messages: user(), stream: true })) text += c.choices[0]?.delta.content ?? '';
        assert.equal(text, 'slow stream');
      });

      test('client disconnect mid-stream → the upstream connection is closed and usage is still recorded', async () => {
        const words = Array.from({ length: 200 }, (_, i) => `w${i} `).join('');
        up.once({ text: words, chunkDelayMs: 20 });
        const before = (await usageRows(model)).length;
        const ac = new AbortController();
        const stream = await sdk.chat.completions.create({ model, messages: user(), stream: true }, { signal: ac.signal });
        let n = 0;
        // The SDK ends the iteration quietly when its own signal aborts it.
        for await (const _ of stream) if (++n === 3) ac.abort();
        assert.equal(n, 3);
        const rec = up.requests[0]!;
        await within(rec.closed, 3000, 'the upstream connection closes after the client left');
        assert.ok(rec.clientClosed, 'the gateway closed the upstream connection before the response finished');
        assert.ok(rec.chunksSent < 150, `upstream stopped early (${rec.chunksSent} chunks sent)`);
        const rows = await within(
          (async () => {
            for (let i = 0; i < 100; i++) {
              const r = await usageRows(model);
              if (r.length > before) return r;
              await new Promise((res) => setTimeout(res, 20));
            }
            return usageRows(model);
          })(),
          5000,
          'usage row',
        );
        assert.equal(rows.length, before + 1, 'the abandoned stream has its usage row');
        assert.equal(rows.at(-1)!.status, 499);
      });
    });
  }

  test('connection refused → retried (no work done), then 502 upstream_unavailable', async () => {
    const t0 = performance.now();
    const e = await sdkError(sdk.chat.completions.create({ model: deadModel, messages: user() }));
    assert.equal(e.status, 502);
    assert.equal(e.code, 'upstream_unavailable');
    // A refused connect on loopback takes well under a millisecond; the retry's backoff (≥ 50 ms)
    // shows the second attempt was made.
    assert.ok(performance.now() - t0 >= 50, 'retried after a backoff');
  });

  test('embeddings on the anthropic model → 400 naming the model, no upstream call', async () => {
    const e = await sdkError(sdk.embeddings.create({ model: 'claude/claude-test', input: 'x' }));
    assert.ok(e instanceof OpenAI.BadRequestError);
    assert.equal(e.param, 'model');
    assert.match(e.message, /claude\/claude-test/);
    assert.equal(g.anthropic.calls, 0);
  });

  describe('service/conduit fallback', () => {
    const families = (list: string[]) => ({ families: Object.fromEntries(['code', 'reasoning', 'long_context', 'vision', 'tools', 'fast'].map((f) => [f, list])) });
    const setConduit = async (list: string[]) => assert.equal((await g.app('/api/app/conduit', json('PUT', families(list)))).status, 200);
    afterAll(() => setConduit([]));

    test('a refused first candidate falls back to the next one', async () => {
      await setConduit([deadModel, 'fake/gpt-test', 'claude/claude-test']);
      const { data, response } = await sdk.chat.completions.create({ model: 'service/conduit', messages: user() }).withResponse();
      assert.equal(data.choices[0]!.message.content, 'Hello from the fake.');
      assert.equal(response.headers.get('x-svc-model'), 'fake/gpt-test');
      assert.equal(g.openai.calls, 1);
      assert.equal(g.anthropic.calls, 0);
    });

    test('a 429 (no work) from the first candidate falls back', async () => {
      await setConduit(['fake/gpt-test', 'claude/claude-test']);
      g.openai.once({ fault: '429', retryAfter: '0' });
      const { response } = await sdk.chat.completions.create({ model: 'service/conduit', messages: user() }).withResponse();
      assert.equal(response.headers.get('x-svc-model'), 'claude/claude-test');
      assert.equal(g.openai.calls, 1);
      assert.equal(g.anthropic.calls, 1);
    });

    test('a failure that may have done work (5xx, reset) never falls back', async () => {
      await setConduit(['fake/gpt-test', 'claude/claude-test']);
      for (const fault of ['5xx', 'reset'] as const) {
        g.openai.reset();
        g.openai.once({ fault });
        const e = await sdkError(sdk.chat.completions.create({ model: 'service/conduit', messages: user() }));
        assert.equal(e.status, 502, fault);
        assert.equal(g.openai.calls, 1, fault);
        assert.equal(g.anthropic.calls, 0, `${fault}: the second candidate was not tried`);
      }
    });
  });
});
