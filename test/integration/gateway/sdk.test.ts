// The official `openai` SDK against the running gateway (real HTTP server, real store, in-repo
// fake upstreams): what it can do against OpenAI for these routes, it does against /api/v1.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import OpenAI from 'openai';
import { vectorFor } from '../../helpers/fake-upstream.ts';
import { json } from '../people.ts';
import { startGateway, type Gateway } from './harness.ts';

const RATE_HEADERS = ['limit', 'remaining', 'reset'].flatMap((k) => [`x-ratelimit-${k}-requests`, `x-ratelimit-${k}-tokens`]);

function assertDiagnosticHeaders(h: Headers, what: string) {
  assert.match(h.get('x-request-id') ?? '', /\S/, `${what}: x-request-id`);
  for (const name of RATE_HEADERS) assert.ok(h.get(name), `${what}: ${name} missing`);
}

/** The error an SDK call rejects with (fails when it resolves). */
async function sdkError(p: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof OpenAI.APIError, `expected an APIError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected the call to fail');
}

describe('gateway through the openai SDK', () => {
  let g: Gateway;
  let sdk: OpenAI;
  beforeAll(async () => {
    g = await startGateway();
    sdk = g.sdk();
  });
  afterAll(() => g.close());
  beforeEach(() => {
    g.openai.reset();
    g.anthropic.reset();
  });

  test('models.list: service/conduit and both accounts\' allowlisted models; an unlisted model is absent', async () => {
    const ids = [];
    for await (const m of sdk.models.list()) ids.push(m.id);
    for (const id of ['service/conduit', 'fake/gpt-test', 'fake/text-embed', 'claude/claude-test']) assert.ok(ids.includes(id), `${id} in ${ids}`);
    // The fake's own catalogue lists gpt-fake-mini, but the account's allowlist does not.
    assert.ok(!ids.includes('fake/gpt-fake-mini'));
    assert.ok(!ids.includes('claude/claude-fake-4'));
    const m = await sdk.models.retrieve('fake/gpt-test');
    assert.equal(m.id, 'fake/gpt-test');
    assert.equal(m.object, 'model');
    assert.equal(m.owned_by, 'openai-compatible');
  });

  test('chat non-streamed: the upstream answer, its usage, and the upstream model name', async () => {
    g.openai.once({ text: 'Hi there.', usage: { input: 7, output: 3, cached: 2 } });
    const { data, response } = await sdk.chat.completions.create({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'hello' }] }).withResponse();
    assert.equal(data.choices[0]!.message.content, 'Hi there.');
    assert.equal(data.usage?.prompt_tokens, 9);
    assert.equal(data.usage?.prompt_tokens_details?.cached_tokens, 2);
    assert.equal(g.openai.requests[0]!.body.model, 'gpt-test', 'the account slug is stripped before the upstream');
    assertDiagnosticHeaders(response.headers, 'chat');
  });

  test('chat streamed with include_usage: chunks arrive, usage comes last on a chunk with choices [], the stream ends', async () => {
    g.openai.once({ text: 'one two three four', usage: { input: 5, output: 4, reasoning: 1 }, chunkDelayMs: 5 });
    const { data: stream, response } = await sdk.chat.completions.create({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'count' }], stream: true, stream_options: { include_usage: true } }).withResponse();
    assertDiagnosticHeaders(response.headers, 'chat stream');
    let text = '';
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const c of stream) {
      chunks.push(c);
      text += c.choices[0]?.delta.content ?? '';
    }
    assert.equal(text, 'one two three four');
    assert.ok(chunks.length >= 5);
    const last = chunks.at(-1)!;
    assert.deepEqual(last.choices, []);
    assert.equal(last.usage?.completion_tokens, 4);
    assert.equal(last.usage?.completion_tokens_details?.reasoning_tokens, 1);
    assert.equal(chunks.filter((c) => c.usage).length, 1, 'exactly one usage chunk');
    assert.equal(g.openai.requests[0]!.body.stream_options?.include_usage, true);
    // Without include_usage the upstream is still asked, but no chunk without choices[0] comes back
    // (test/integration/gateway/streams.test.ts covers this in full).
    g.openai.once({ text: 'one two', usage: { input: 5, output: 2 } });
    for await (const c of await sdk.chat.completions.create({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'count' }], stream: true })) assert.ok(c.choices[0]);
    assert.equal(g.openai.requests[1]!.body.stream_options?.include_usage, true);
  });

  test('chat streamed over raw HTTP ends with data: [DONE]', async () => {
    const res = await fetch(`${g.base}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${g.memberKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude/claude-test', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const text = await res.text();
    assert.ok(text.endsWith('data: [DONE]\n\n'), text.slice(-200));
    assert.match(text, /"choices":\[\],"usage":\{/);
  });

  test('response_format and reasoning_effort reach the upstream', async () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };
    await sdk.chat.completions.create({
      model: 'fake/gpt-test',
      messages: [{ role: 'user', content: 'json please' }],
      response_format: { type: 'json_schema', json_schema: { name: 'thing', schema, strict: true } },
      reasoning_effort: 'low',
    });
    const body = g.openai.requests[0]!.body;
    assert.deepEqual(body.response_format, { type: 'json_schema', json_schema: { name: 'thing', schema, strict: true } });
    assert.equal(body.reasoning_effort, 'low');
  });

  test('responses.create: translated to chat and back, with usage splits', async () => {
    g.openai.once({ text: 'Paris.', usage: { input: 6, cached: 4, output: 5, reasoning: 3 } });
    const r = await sdk.responses.create({ model: 'fake/gpt-test', instructions: 'Be brief.', input: 'Capital of France?', reasoning: { effort: 'high' }, store: false });
    assert.equal(r.object, 'response');
    assert.equal(r.status, 'completed');
    assert.equal(r.output_text, 'Paris.');
    assert.equal(r.parallel_tool_calls, true);
    assert.equal(r.usage?.input_tokens, 10);
    assert.equal(r.usage?.input_tokens_details.cached_tokens, 4);
    assert.equal(r.usage?.output_tokens_details.reasoning_tokens, 3);
    const body = g.openai.requests[0]!.body;
    assert.deepEqual(body.messages[0], { role: 'system', content: 'Be brief.' });
    assert.equal(body.reasoning_effort, 'high');
  });

  test('responses.stream() + finalResponse(): text deltas, then usage with cached/reasoning splits', async () => {
    g.anthropic.once({ text: 'Bonjour tout le monde', usage: { input: 8, cached: 5, cacheCreation: 2, output: 6 }, chunkDelayMs: 2 });
    const stream = sdk.responses.stream({ model: 'claude/claude-test', input: 'Say hello in French' });
    let deltas = '';
    stream.on('response.output_text.delta', (e) => (deltas += e.delta));
    const final = await stream.finalResponse();
    assert.equal(deltas, 'Bonjour tout le monde');
    assert.equal(final.output_text, 'Bonjour tout le monde');
    assert.equal(final.status, 'completed');
    assert.equal(final.usage?.input_tokens, 15, 'input + cache read + cache write');
    assert.equal(final.usage?.input_tokens_details.cached_tokens, 5);
    assert.equal(final.usage?.output_tokens, 6);
    assert.equal(final.usage?.output_tokens_details.reasoning_tokens, 0);

    g.openai.once({ text: 'ok then', usage: { input: 3, output: 4, reasoning: 2, cached: 1 } });
    const s2 = await sdk.responses.stream({ model: 'fake/gpt-test', input: 'think' }).finalResponse();
    assert.equal(s2.output_text, 'ok then');
    assert.equal(s2.usage?.output_tokens_details.reasoning_tokens, 2);
    assert.equal(s2.usage?.input_tokens_details.cached_tokens, 1);
  });

  test('embeddings.create: float as sent; default (base64) decoded by the SDK to the same vector', async () => {
    const input = 'the quick brown fox';
    const want = vectorFor(input, 8);
    const f = await sdk.embeddings.create({ model: 'fake/text-embed', input, encoding_format: 'float' });
    assert.deepEqual(f.data[0]!.embedding, want);
    assert.equal(f.usage.prompt_tokens, 4);

    const { data: d, response } = await sdk.embeddings.create({ model: 'fake/text-embed', input: [input, 'second'] }).withResponse();
    assert.equal(d.data.length, 2);
    assert.deepEqual(d.data[0]!.embedding, want.map(Math.fround), 'float32 precision after base64');
    assert.deepEqual(d.data[1]!.embedding, vectorFor('second', 8).map(Math.fround));
    assertDiagnosticHeaders(response.headers, 'embeddings');
    // The base64 body on the wire decodes to float32 little-endian values.
    const raw = await fetch(`${g.base}/api/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${g.memberKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake/text-embed', input, encoding_format: 'base64' }),
    });
    const b64 = ((await raw.json()) as { data: { embedding: string }[] }).data[0]!.embedding;
    assert.equal(typeof b64, 'string');
    const buf = Buffer.from(b64, 'base64');
    assert.deepEqual(Array.from({ length: buf.length / 4 }, (_, i) => buf.readFloatLE(i * 4)), want.map(Math.fround));
  });

  test('unknown model → NotFoundError model_not_found with param model; the upstream is not called', async () => {
    const e = await sdkError(sdk.chat.completions.create({ model: 'fake/gpt-nope', messages: [{ role: 'user', content: 'x' }] }));
    assert.ok(e instanceof OpenAI.NotFoundError);
    assert.equal(e.code, 'model_not_found');
    assert.equal(e.param, 'model');
    assert.equal(g.openai.calls, 0);
    assertDiagnosticHeaders(e.headers as Headers, '404');
    const r = await sdkError(sdk.models.retrieve('fake/gpt-fake-mini'));
    assert.ok(r instanceof OpenAI.NotFoundError);
  });

  test('a Responses refusal → BadRequestError with our code and param', async () => {
    const e = await sdkError(sdk.responses.create({ model: 'fake/gpt-test', input: 'x', metadata: { a: 'b' } }));
    assert.ok(e instanceof OpenAI.BadRequestError);
    assert.equal(e.code, 'metadata_not_supported');
    assert.equal(e.param, 'metadata');
    assert.equal(g.openai.calls, 0);
    assertDiagnosticHeaders(e.headers as Headers, 'refusal');
  });

  test('a bad key → AuthenticationError, still with x-request-id', async () => {
    const e = await sdkError(g.sdk('svc_live_notakey').models.list());
    assert.ok(e instanceof OpenAI.AuthenticationError);
    assert.equal(e.status, 401);
    assert.match((e.headers as Headers).get('x-request-id') ?? '', /\S/);
  });

  test('over the key limit → RateLimitError 429 with retry-after and x-ratelimit-* readable from its headers', async () => {
    const res = await g.app('/api/app/keys', json('POST', { name: 'tight', limits: { requestsPerMinute: 2, tokensPerMinute: 100000 } }));
    const key = ((await res.json()) as { token: string }).token;
    const s = g.sdk(key);
    const first = await s.chat.completions.create({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'x' }] }).withResponse();
    assert.equal(first.response.headers.get('x-ratelimit-limit-requests'), '2');
    assert.equal(first.response.headers.get('x-ratelimit-remaining-requests'), '1');
    await s.chat.completions.create({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'x' }] });
    const e = await sdkError(s.chat.completions.create({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'x' }] }));
    assert.ok(e instanceof OpenAI.RateLimitError);
    assert.equal(e.code, 'rate_limit_exceeded');
    const h = e.headers as Headers;
    assert.ok(Number(h.get('retry-after')) >= 1 && Number(h.get('retry-after')) <= 60, `retry-after ${h.get('retry-after')}`);
    assert.equal(h.get('x-ratelimit-limit-requests'), '2');
    assert.equal(h.get('x-ratelimit-remaining-requests'), '0');
    assert.match(h.get('x-ratelimit-reset-requests') ?? '', /^\d+(\.\d+)?(ms|s)$|^\d+m\d+s$/);
    assertDiagnosticHeaders(h, '429');
    assert.equal(g.openai.calls, 2, 'the refused call never reached the upstream');
  });

  test('every /api/v1 route answers with x-request-id and x-ratelimit-* headers', async () => {
    const get = (path: string) => fetch(`${g.base}/api/v1${path}`, { headers: { authorization: `Bearer ${g.memberKey}` } });
    const post = (path: string, body: unknown) =>
      fetch(`${g.base}/api/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${g.memberKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const msgs = [{ role: 'user', content: 'hi' }];
    const cases: Array<[string, Promise<Response>]> = [
      ['models', get('/models')],
      ['model', get('/models/fake/gpt-test')],
      ['quota', get('/quota')],
      ['usage', get('/usage')],
      ['router', post('/router', { model: 'service/conduit', messages: msgs })],
      ['chat', post('/chat/completions', { model: 'fake/gpt-test', messages: msgs })],
      ['responses', post('/responses', { model: 'fake/gpt-test', input: 'hi' })],
      ['embeddings', post('/embeddings', { model: 'fake/text-embed', input: 'hi' })],
      ['chat 400', post('/chat/completions', { model: 'fake/gpt-test', messages: [] })],
    ];
    for (const [what, p] of cases) {
      const res = await p;
      await res.arrayBuffer();
      assertDiagnosticHeaders(res.headers, what);
    }
  });
});
