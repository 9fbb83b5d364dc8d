/**
 * The reference client against this translation: the official `openai` SDK talks to a tiny
 * test-only node:http server that does what the real route will do — parseResponsesRequest on
 * the SDK's own body, then our envelope or our SSE from scripted chat output.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { UpstreamError } from '../../providers/types.ts';
import type { ChatChunk, ChatCompletion, ChatRequest } from '../../wire/openai.ts';
import { parseResponsesRequest } from './request.ts';
import { toResponsesEnvelope } from './response.ts';
import { formatSse } from './sse.ts';
import { responsesEventStream } from './stream.ts';

/** What the fake upstream says next; each test sets it. */
let script: { completion?: ChatCompletion; chunks?: ChatChunk[]; failAfter?: number } = {};
let lastChat: ChatRequest | undefined;

async function* upstream(chunks: ChatChunk[], failAfter?: number): AsyncGenerator<ChatChunk> {
  for (let i = 0; i < chunks.length; i++) {
    if (i === failAfter) throw new UpstreamError(502, { error: { message: 'upstream reset', type: 'server_error', param: null, code: null } }, { noWork: false });
    yield chunks[i] as ChatChunk;
  }
}

let server: Server;
let client: OpenAI;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    if (req.method !== 'POST' || req.url !== '/api/v1/responses') return void res.writeHead(404).end();
    let parsed;
    try {
      parsed = parseResponsesRequest(JSON.parse(body));
    } catch (e) {
      const err = e as { status: number; code: string; field: string; message: string };
      res.writeHead(err.status, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: { message: err.message, type: 'invalid_request_error', param: err.field, code: err.code } }));
    }
    lastChat = parsed.chat;
    if (parsed.chat.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for await (const e of responsesEventStream(upstream(script.chunks ?? [], script.failAfter), parsed.meta)) res.write(formatSse(e));
      return void res.end();
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(toResponsesEnvelope(script.completion as ChatCompletion, parsed.meta)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  client = new OpenAI({ baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, apiKey: 'x', maxRetries: 0 });
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const usage = { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29, prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 2 } };
const expectedUsage = { input_tokens: 20, input_tokens_details: { cached_tokens: 4 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 2 }, total_tokens: 29 };
const chunk = (delta: ChatChunk['choices'][0]['delta'], finish: ChatChunk['choices'][0]['finish_reason'] = null): ChatChunk => ({
  id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini-2024-07-18', choices: [{ index: 0, delta, finish_reason: finish }],
});
const usageChunk: ChatChunk = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini-2024-07-18', choices: [], usage };
const weatherTool = { type: 'function' as const, name: 'get_weather', description: 'Weather by city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }, strict: true };

describe('the openai SDK against the Responses translation', () => {
  it('responses.create (non-streamed): text, tool calls, usage, echoes', async () => {
    script.completion = {
      id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o-mini-2024-07-18', usage,
      choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: 'Let me check.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] } }],
    };
    const r = await client.responses.create({ model: 'openai/gpt-4o-mini', instructions: 'Be brief.', input: 'Weather in Paris?', tools: [weatherTool], store: false, temperature: 0.3 });
    assert.match(r.id, /^resp_/);
    assert.equal(r.status, 'completed');
    assert.equal(r.output_text, 'Let me check.');
    const call = r.output.find((o) => o.type === 'function_call');
    assert.ok(call && call.type === 'function_call');
    assert.equal(call.call_id, 'call_1');
    assert.equal(call.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris' });
    assert.deepEqual(r.usage, expectedUsage);
    assert.equal(r.parallel_tool_calls, true);
    assert.equal(r.temperature, 0.3);
    assert.equal(r.instructions, 'Be brief.');
    assert.equal(r.model, 'gpt-4o-mini-2024-07-18');
    assert.deepEqual(r.tools, [weatherTool]);
    assert.equal(lastChat?.messages[0]?.role, 'system');
  });

  it('responses.create: finish_reason length → incomplete with max_output_tokens', async () => {
    script.completion = { id: 'c', object: 'chat.completion', created: 1, model: 'm', usage, choices: [{ index: 0, finish_reason: 'length', message: { role: 'assistant', content: 'Once upon' } }] };
    const r = await client.responses.create({ model: 'm', input: 'story', max_output_tokens: 16 });
    assert.equal(r.status, 'incomplete');
    assert.deepEqual(r.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal(r.output_text, 'Once upon');
    assert.equal(lastChat?.max_completion_tokens, 16);
  });

  it('responses.stream(): text deltas, tool-call arguments and usage reach finalResponse()', async () => {
    script = {
      chunks: [
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'Hel' }),
        chunk({ content: 'lo!' }),
        chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
        chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }), // interleaved upstream
        chunk({}, 'tool_calls'),
        usageChunk,
      ],
    };
    const stream = client.responses.stream({ model: 'm', input: 'hi', tools: [weatherTool] });
    const deltas: string[] = [];
    const types: string[] = [];
    stream.on('response.output_text.delta', (e) => deltas.push(e.delta));
    stream.on('event', (e) => types.push(e.type));
    const r = await stream.finalResponse();
    assert.equal(lastChat?.stream, true);
    assert.deepEqual(deltas, ['Hel', 'lo!']);
    assert.equal(r.status, 'completed');
    assert.equal(r.output_text, 'Hello!');
    const calls = r.output.filter((o) => o.type === 'function_call');
    assert.deepEqual(calls.map((c) => [c.call_id, JSON.parse(c.arguments).city, c.status]), [['call_a', 'Paris', 'completed'], ['call_b', 'Oslo', 'completed']]);
    assert.deepEqual(r.usage, expectedUsage);
    assert.equal(r.model, 'gpt-4o-mini-2024-07-18');
    assert.equal(types[0], 'response.created');
    assert.equal(types[1], 'response.in_progress');
    assert.equal(types.at(-1), 'response.completed');
    for (const t of ['response.content_part.added', 'response.output_text.done', 'response.content_part.done', 'response.function_call_arguments.done', 'response.output_item.done']) {
      assert.ok(types.includes(t), `missing ${t}`);
    }
  });

  it('responses.stream(): a refusal streams as a refusal part', async () => {
    script = { chunks: [chunk({ refusal: 'I can' }), chunk({ refusal: "'t help." }), chunk({}, 'stop'), usageChunk] };
    const r = await client.responses.stream({ model: 'm', input: 'x' }).finalResponse();
    const msg = r.output[0];
    assert.ok(msg && msg.type === 'message');
    assert.deepEqual(msg.content.map((c) => [c.type, c.type === 'refusal' && c.refusal]), [['refusal', "I can't help."]]);
    assert.equal(r.output_text, '');
  });

  it('responses.stream(): finish_reason length ends with response.incomplete', async () => {
    script = { chunks: [chunk({ content: 'Once' }), chunk({}, 'length'), usageChunk] };
    const r = await client.responses.stream({ model: 'm', input: 'x', max_output_tokens: 1 }).finalResponse();
    assert.equal(r.status, 'incomplete');
    assert.deepEqual(r.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal(r.output_text, 'Once');
    assert.deepEqual(r.usage, expectedUsage);
  });

  it('responses.stream(): an upstream failure mid-stream ends with response.failed, partial output kept', async () => {
    script = { chunks: [chunk({ content: 'Part' }), chunk({ content: 'ial' }), chunk({ content: 'never' })], failAfter: 2 };
    const stream = client.responses.stream({ model: 'm', input: 'x' });
    let failed = false;
    stream.on('response.failed', () => { failed = true; });
    const r = await stream.finalResponse();
    assert.equal(failed, true);
    assert.equal(r.status, 'failed');
    assert.deepEqual(r.error, { code: 'server_error', message: 'upstream reset' });
    assert.equal(r.output_text, 'Partial');
    assert.equal(r.output[0]?.type === 'message' && r.output[0].status, 'incomplete');
  });

  it('a refusal surfaces as the SDK\'s typed BadRequestError with our code and param', async () => {
    await assert.rejects(client.responses.create({ model: 'm', input: 'x', previous_response_id: 'resp_1' }), (e: unknown) => {
      assert.ok(e instanceof OpenAI.BadRequestError);
      assert.equal(e.code, 'previous_response_id_not_supported');
      assert.equal(e.param, 'previous_response_id');
      return true;
    });
  });
});
