// The provider engine against in-repo fakes that speak each provider's real wire protocol, over
// real HTTP on loopback: paths, auth, body transforms, streaming order and timing, usage splits,
// every fault mode with its error normalisation and noWork flag, and client aborts.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, it } from 'vitest';
import { decodeFloat32 } from '../../core/providers/embeddings.ts';
import { splitsOf, type ChatChunk, type ChatRequest } from '../../core/wire/openai.ts';
import { createProviderEngine } from '../../core/providers/engine.ts';
import { PROVIDERS } from '../../core/providers/registry.ts';
import { withSafeRetry } from '../../core/providers/retry.ts';
import { UpstreamError, type ProviderEngine, type ProviderId, type Target } from '../../core/providers/types.ts';
import { fakeAnthropic, fakeOpenAi, refusingUrl, sleep, type FakeUpstream } from '../helpers/fake-upstream.ts';

const KEY = 'sk-test-key';
const CHAT: ChatRequest = { model: 'm-1', messages: [{ role: 'user', content: 'Say hi' }], max_completion_tokens: 64, seed: 1 };
const OPENAI_LIKE: ProviderId[] = ['openai', 'openrouter', 'groq', 'mistral', 'deepseek', 'together', 'gemini', 'openai-compatible', 'local'];

/** The provider's default base path (e.g. /v1beta/openai for gemini) on the fake's origin. */
function targetFor(provider: ProviderId, fake: FakeUpstream): Target {
  const def = PROVIDERS[provider].defaultBaseUrl;
  const path = def ? new URL(def).pathname : '/v1';
  return { accountId: `acct-${provider}`, provider, baseUrl: fake.origin + path, apiKey: provider === 'local' ? undefined : KEY };
}

async function collect(it: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const out: ChatChunk[] = [];
  for await (const c of it) out.push(c);
  return out;
}

const isUpstream = (status: number, noWork: boolean, code?: string) => (e: unknown) => {
  assert.ok(e instanceof UpstreamError, `expected UpstreamError, got ${String(e)}`);
  assert.equal(e.status, status);
  assert.equal(e.noWork, noWork);
  if (code) assert.equal(e.body.error.code, code);
  assert.equal(typeof e.body.error.message, 'string');
  return true;
};

let engine: ProviderEngine;
let oa: FakeUpstream;
let an: FakeUpstream;

beforeAll(async () => {
  // The fakes listen on loopback: allowed the way an operator allows a LAN model server.
  engine = createProviderEngine({ headersTimeoutMs: 300, allowedPrivateHosts: ['127.0.0.1'] });
  oa = await fakeOpenAi();
  an = await fakeAnthropic({ apiKey: KEY });
});
afterAll(async () => {
  await engine.close();
  await oa.close();
  await an.close();
});
beforeEach(() => {
  oa.reset();
  an.reset();
});

describe('OpenAI-protocol providers (table)', () => {
  for (const provider of OPENAI_LIKE) {
    const spec = PROVIDERS[provider];
    it(`${provider}: path, auth, body transform, raw passthrough, usage`, async () => {
      const t = targetFor(provider, oa);
      oa.script({ text: 'Hi there', usage: { input: 7, cached: 3, output: 4, reasoning: 2 } });
      const r = await engine.chat(t, CHAT);
      const rec = oa.requests[0]!;
      assert.equal(rec.method, 'POST');
      assert.equal(rec.path, new URL(t.baseUrl).pathname + '/chat/completions');
      assert.equal(rec.headers.authorization, provider === 'local' ? undefined : `Bearer ${KEY}`);
      assert.equal(rec.headers['content-type'], 'application/json');
      assert.equal(rec.body.model, 'm-1');
      assert.equal(rec.body[spec.quirks.maxTokensField], 64);
      assert.equal(provider === 'mistral' ? rec.body.random_seed : rec.body.seed, 1);
      assert.equal(r.completion.choices[0]!.message.content, 'Hi there');
      assert.equal(typeof r.raw, 'string');
      assert.deepEqual(JSON.parse(r.raw!), r.completion);
      assert.deepEqual(splitsOf(r.completion.usage), { inputTokens: 10, cachedTokens: 3, outputTokens: 4, reasoningTokens: 2, totalTokens: 14 });
    });

    it(`${provider}: stream asks for usage where supported and ends with a choices:[] usage chunk`, async () => {
      const t = targetFor(provider, oa);
      // Mistral does not take stream_options; it reports usage on its last chunk instead.
      oa.script({ text: 'one two three', usage: { input: 5, output: 3 }, streamUsage: spec.quirks.streamOptions ? 'standard' : 'last-chunk' });
      const chunks = await collect(await engine.chatStream(t, { ...CHAT, stream: true }));
      const body = oa.requests[0]!.body;
      assert.equal(body.stream, true);
      if (spec.quirks.streamOptions) assert.deepEqual(body.stream_options, { include_usage: true });
      else assert.equal('stream_options' in body, false);
      assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'one two three');
      const last = chunks.at(-1)!;
      assert.deepEqual(last.choices, []);
      assert.deepEqual(splitsOf(last.usage), { inputTokens: 5, cachedTokens: 0, outputTokens: 3, reasoningTokens: 0, totalTokens: 8 });
      assert.equal(chunks.filter((c) => c.usage).length, 1);
    });

    it(`${provider}: models${spec.embeddings ? ' and embeddings (float and base64)' : ''}`, async () => {
      const t = targetFor(provider, oa);
      oa.script({ models: provider === 'gemini' ? ['models/gemini-x', 'models/gemini-y'] : ['a', 'b'] });
      assert.deepEqual(await engine.listModels(t), provider === 'gemini' ? ['gemini-x', 'gemini-y'] : ['a', 'b']);
      assert.equal(oa.requests[0]!.path, new URL(t.baseUrl).pathname + '/models');
      assert.equal(engine.supportsEmbeddings(provider), spec.embeddings);
      if (!spec.embeddings) return;
      const f = await engine.embeddings(t, { model: 'e', input: ['alpha', 'beta'], encoding_format: 'float' });
      assert.equal(f.data.length, 2);
      const v = f.data[1]!.embedding as number[];
      assert.equal(v.length, 8);
      const b = await engine.embeddings(t, { model: 'e', input: ['alpha', 'beta'], encoding_format: 'base64' });
      assert.equal(oa.requests.at(-1)!.body.encoding_format, spec.quirks.base64Embeddings ? 'base64' : 'float');
      const decoded = decodeFloat32(b.data[1]!.embedding as string);
      assert.deepEqual(decoded, v.map((x) => Math.fround(x)));
    });
  }
});

describe('anthropic', () => {
  const t = (): Target => targetFor('anthropic', an);

  it('non-streamed: Messages path and headers, translated body, completion with tool calls and usage splits', async () => {
    an.script({ text: 'Sure.', thinking: 'Let me think', toolCalls: [{ id: 'tu_1', name: 'lookup', arguments: '{"q":"x"}' }], usage: { input: 10, cached: 30, cacheCreation: 5, output: 200 } });
    const r = await engine.chat(t(), { ...CHAT, messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }] });
    const rec = an.requests[0]!;
    assert.equal(rec.path, '/v1/messages');
    assert.equal(rec.headers['x-api-key'], KEY);
    assert.equal(rec.headers['anthropic-version'], '2023-06-01');
    assert.equal(rec.headers.authorization, undefined);
    assert.equal(rec.body.system, 'sys');
    assert.equal(rec.body.max_tokens, 64);
    assert.deepEqual(rec.body.tools, [{ name: 'lookup', input_schema: { type: 'object' } }]);
    assert.equal(r.raw, undefined);
    const m = r.completion.choices[0]!;
    assert.equal(m.message.content, 'Sure.');
    assert.deepEqual(m.message.tool_calls, [{ id: 'tu_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }]);
    assert.equal(m.finish_reason, 'tool_calls');
    const s = splitsOf(r.completion.usage);
    assert.deepEqual({ ...s, reasoningTokens: 0 }, { inputTokens: 45, cachedTokens: 30, outputTokens: 200, reasoningTokens: 0, totalTokens: 245 });
    assert.ok(s.reasoningTokens > 150 && s.reasoningTokens < 200, `reasoning estimate ${s.reasoningTokens}`);
  });

  it('streamed: the real event sequence becomes chunks, usage chunk last', async () => {
    an.script({ text: 'Hello there friend', thinking: 'hmm', toolCalls: [{ name: 'f', arguments: '{"a":1}' }], usage: { input: 3, cached: 2, output: 9 } });
    const chunks = await collect(await engine.chatStream(t(), { ...CHAT, stream: true }));
    assert.equal(an.requests[0]!.body.stream, true);
    assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'Hello there friend');
    const args = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).map((d) => d.function?.arguments ?? '').join('');
    assert.equal(args, '{"a":1}');
    assert.equal(chunks.at(-2)!.choices[0]!.finish_reason, 'tool_calls');
    const last = chunks.at(-1)!;
    assert.deepEqual(last.choices, []);
    assert.deepEqual({ ...splitsOf(last.usage), reasoningTokens: 0 }, { inputTokens: 5, cachedTokens: 2, outputTokens: 9, reasoningTokens: 0, totalTokens: 14 });
  });

  it('models, and Anthropic error bodies normalised to the OpenAI shape', async () => {
    an.script({ models: ['claude-a', 'claude-b'] });
    assert.deepEqual(await engine.listModels(t()), ['claude-a', 'claude-b']);
    assert.match(an.requests[0]!.path, /^\/v1\/models\?limit=1000$/);
    an.once({ status: 400, errorBody: { type: 'error', error: { type: 'invalid_request_error', message: 'messages: roles must alternate' } } });
    await assert.rejects(engine.chat(t(), CHAT), (e: unknown) => {
      isUpstream(400, false, 'invalid_request_error')(e);
      assert.deepEqual((e as UpstreamError).body.error, { message: 'messages: roles must alternate', type: 'invalid_request_error', param: null, code: 'invalid_request_error' });
      return true;
    });
    await assert.rejects(engine.chat({ ...t(), apiKey: 'wrong' }, CHAT), isUpstream(502, false, 'upstream_auth_failed'));
    assert.equal(engine.supportsEmbeddings('anthropic'), false);
    await assert.rejects(engine.embeddings(t(), { model: 'claude-a', input: 'x' }), (e: unknown) => {
      isUpstream(400, false, 'embeddings_not_supported')(e);
      assert.equal((e as UpstreamError).body.error.param, 'model');
      return true;
    });
    assert.equal(an.calls, 3); // the embeddings refusal never reached the upstream
  });
});

describe('streaming is not buffered', () => {
  for (const [name, fake] of [['openai', () => oa], ['anthropic', () => an]] as const) {
    it(`${name}: the first chunk arrives before the fake sends the next`, async () => {
      const f = fake();
      f.script({ chunks: ['a', 'b', 'c'], chunkDelayMs: 150 });
      const t = targetFor(name === 'openai' ? 'openai' : 'anthropic', f);
      const it = await engine.chatStream(t, { ...CHAT, stream: true });
      const seen: number[] = [];
      for await (const c of it) {
        if (c.choices[0]?.delta.content) seen.push(f.requests[0]!.chunksSent);
      }
      // When each content chunk reached us, the fake had not yet written the one after it.
      const firstContentEvent = name === 'openai' ? 2 : 4; // role chunk | message_start, ping, block_start
      assert.deepEqual(seen, [firstContentEvent, firstContentEvent + 1, firstContentEvent + 2]);
    });
  }
});

describe('faults', () => {
  const cases = [
    ['openai', () => oa, 'openai'],
    ['anthropic', () => an, 'anthropic'],
  ] as const;
  for (const [name, fake, provider] of cases) {
    const t = () => targetFor(provider, fake());

    it(`${name}: slow first byte past the headers timeout → 504, not noWork`, async () => {
      fake().once({ latencyMs: 1000 });
      await assert.rejects(engine.chat(t(), CHAT), isUpstream(504, false, 'upstream_timeout'));
    });

    it(`${name}: 5xx → 502 server_error, not noWork`, async () => {
      fake().once({ fault: '5xx', status: provider === 'anthropic' ? 529 : 503 });
      await assert.rejects(engine.chat(t(), CHAT), (e: unknown) => {
        isUpstream(502, false, 'upstream_error')(e);
        assert.equal((e as UpstreamError).body.error.type, 'server_error');
        return true;
      });
    });

    it(`${name}: 429 with retry-after → 429, noWork, retryAfterMs`, async () => {
      fake().once({ fault: '429', retryAfter: '3' });
      await assert.rejects(engine.chat(t(), CHAT), (e: unknown) => {
        isUpstream(429, true)(e);
        assert.equal((e as UpstreamError).retryAfterMs, 3000);
        assert.equal((e as UpstreamError).body.error.type, 'rate_limit_error');
        return true;
      });
    });

    it(`${name}: reset before the response and mid-stream → 502, not noWork; chunks before the cut were delivered`, async () => {
      fake().once({ fault: 'reset' });
      await assert.rejects(engine.chat(t(), CHAT), isUpstream(502, false, 'upstream_connection_reset'));
      fake().once({ fault: 'reset', afterChunks: 3, chunks: ['a', 'b', 'c', 'd'], chunkDelayMs: 5 });
      const got: ChatChunk[] = [];
      await assert.rejects(async () => {
        for await (const c of await engine.chatStream(t(), { ...CHAT, stream: true })) got.push(c);
      }, isUpstream(502, false));
      assert.ok(got.length >= 1 && got.length <= 3, `got ${got.length}`);
    });

    it(`${name}: an error event mid-stream throws from the iterator, not noWork`, async () => {
      fake().once({ fault: 'stream-error', afterChunks: 3, chunks: ['a', 'b', 'c'] });
      await assert.rejects(collect(await engine.chatStream(t(), { ...CHAT, stream: true })), isUpstream(502, false));
    });

    it(`${name}: aborting a hung call closes the upstream connection`, async () => {
      fake().once({ fault: 'hang' });
      const ac = new AbortController();
      const p = engine.chat(t(), CHAT, ac.signal);
      while (fake().calls === 0) await sleep(5);
      ac.abort();
      await assert.rejects(p, isUpstream(499, false, 'client_closed_request'));
      await fake().requests[0]!.closed;
      assert.equal(fake().requests[0]!.clientClosed, true);
    });

    it(`${name}: a client leaving mid-stream (abort or break) closes the upstream connection`, async () => {
      for (const how of ['abort', 'break'] as const) {
        fake().reset();
        fake().once({ chunks: ['a', 'b', 'c', 'd', 'e'], chunkDelayMs: 100 });
        const ac = new AbortController();
        const it = await engine.chatStream(t(), { ...CHAT, stream: true }, ac.signal);
        await assert.rejects(async () => {
          for await (const c of it) {
            if (c.choices[0]?.delta.content === 'a') {
              if (how === 'break') break;
              ac.abort();
            }
          }
          if (how === 'break') throw new UpstreamError(499, { error: { message: 'left', type: 'x', param: null, code: null } }, { noWork: false });
        }, isUpstream(499, false));
        await fake().requests[0]!.closed;
        assert.equal(fake().requests[0]!.clientClosed, true, how);
        assert.ok(fake().requests[0]!.chunksSent < 8, how);
      }
    });
  }

  it('connection refused → 502 upstream_unavailable, noWork', async () => {
    const url = await refusingUrl();
    for (const provider of ['openai', 'anthropic'] as const) {
      await assert.rejects(engine.chat({ accountId: 'a', provider, baseUrl: url, apiKey: KEY }, CHAT), isUpstream(502, true, 'upstream_unavailable'));
      await assert.rejects(engine.chatStream({ accountId: 'a', provider, baseUrl: url, apiKey: KEY }, CHAT), isUpstream(502, true));
    }
  });

  it('an upstream 4xx in the OpenAI shape passes through with its status, type, param and code', async () => {
    oa.once({ status: 404, errorBody: { error: { message: 'The model `nope` does not exist', type: 'invalid_request_error', param: 'model', code: 'model_not_found' } } });
    await assert.rejects(engine.chat(targetFor('openai', oa), CHAT), (e: unknown) => {
      assert.deepEqual((e as UpstreamError).body.error, { message: 'The model `nope` does not exist', type: 'invalid_request_error', param: 'model', code: 'model_not_found' });
      return isUpstream(404, false)(e);
    });
  });
});

describe('engine plumbing', () => {
  it('keeps connections alive: sequential calls reuse the pool\'s connections', async () => {
    const e = createProviderEngine({ allowedPrivateHosts: ['127.0.0.1'] });
    try {
      for (let i = 0; i < 10; i++) await e.chat(targetFor('openai', oa), CHAT);
      assert.equal(oa.calls, 10);
      // undici frees a socket one tick after its response ends, so a call issued in that same
      // tick opens a second one; after that the two are reused.
      assert.ok(oa.connections <= 2, `${oa.connections} connections for 10 calls`);
    } finally {
      await e.close();
    }
  });

  it('withSafeRetry retries a 429 and a refused connection, never a 5xx or a reset', async () => {
    oa.once({ fault: '429', retryAfter: '0' });
    const r = await withSafeRetry(() => engine.chat(targetFor('openai', oa), CHAT), { attempts: 3, baseDelayMs: 1 });
    assert.equal(r.completion.object, 'chat.completion');
    assert.equal(oa.calls, 2);

    const refused = await refusingUrl();
    const tried: string[] = [];
    const fallback = await withSafeRetry((n) => {
      const t = n === 1 ? { accountId: 'down', provider: 'openai' as const, baseUrl: refused, apiKey: KEY } : targetFor('openai', oa);
      tried.push(t.accountId);
      return engine.chat(t, CHAT);
    }, { attempts: 2, baseDelayMs: 1 });
    assert.equal(fallback.completion.object, 'chat.completion');
    assert.deepEqual(tried, ['down', 'acct-openai']);

    for (const fault of ['5xx', 'reset'] as const) {
      oa.reset();
      oa.once({ fault });
      await assert.rejects(withSafeRetry(() => engine.chat(targetFor('openai', oa), CHAT), { attempts: 3, baseDelayMs: 1 }), UpstreamError);
      assert.equal(oa.calls, 1, fault);
    }
  });
});
