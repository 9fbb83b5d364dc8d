/**
 * A fake Anthropic Messages API with the full SSE event sequence and error bodies.
 * Like the real one it requires `x-api-key`, `anthropic-version` and `max_tokens`.
 */
import type { ServerResponse } from 'node:http';
import {
  notFound, piecesOf, sendJson, startFake, writeStream,
  type FakeOptions, type FakeScript, type FakeUpstream, type Protocol, type RecordedRequest,
} from './fake-upstream.ts';

const TYPES = { auth: 'authentication_error', server: 'api_error', rate: 'rate_limit_error', invalid: 'invalid_request_error', notfound: 'not_found_error' } as const;

let seq = 0;

function usageOf(s: FakeScript) {
  const u = s.usage ?? {};
  return {
    input_tokens: u.input ?? 10,
    cache_creation_input_tokens: u.cacheCreation ?? 0,
    cache_read_input_tokens: u.cached ?? 0,
    output_tokens: u.output ?? 5,
    service_tier: 'standard',
  };
}

function messages(rec: RecordedRequest, res: ServerResponse, s: FakeScript) {
  const b = rec.body;
  if (!b || typeof b.model !== 'string' || !Array.isArray(b.messages)) {
    return sendJson(res, 400, anthropic.errorBody(400, 'invalid', 'messages: Field required'));
  }
  if (typeof b.max_tokens !== 'number') return sendJson(res, 400, anthropic.errorBody(400, 'invalid', 'max_tokens: Field required'));
  const id = `msg_fake${++seq}`;
  const model = s.model ?? b.model;
  const text = s.text ?? (s.toolCalls ? '' : 'Hello from the fake.');
  const tools = (s.toolCalls ?? []).map((t, i) => ({ type: 'tool_use', id: t.id ?? `toolu_fake${i}`, name: t.name, input: JSON.parse(t.arguments || '{}') as unknown }));
  const stop = s.finishReason ?? (tools.length ? 'tool_use' : 'end_turn');
  const usage = usageOf(s);

  if (!b.stream) {
    const content: unknown[] = [];
    if (s.thinking) content.push({ type: 'thinking', thinking: s.thinking, signature: 'sig_fake' });
    if (text) content.push({ type: 'text', text });
    content.push(...tools);
    return sendJson(res, 200, { id, type: 'message', role: 'assistant', model, content, stop_reason: stop, stop_sequence: null, usage }, { 'request-id': `req_${id}` });
  }

  const ev = (type: string, o: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...o })}\n\n`;
  const events: string[] = [
    ev('message_start', {
      message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
    }),
    ev('ping', {}),
  ];
  let index = 0;
  if (s.thinking) {
    events.push(ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
    for (const p of piecesOf({}, s.thinking)) events.push(ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: p } }));
    events.push(ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: 'sig_fake' } }));
    events.push(ev('content_block_stop', { index }));
    index++;
  }
  if (text) {
    events.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
    for (const p of piecesOf(s, text)) events.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: p } }));
    events.push(ev('content_block_stop', { index }));
    index++;
  }
  for (const t of tools) {
    events.push(ev('content_block_start', { index, content_block: { type: 'tool_use', id: t.id, name: t.name, input: {} } }));
    const a = JSON.stringify(t.input);
    const mid = Math.ceil(a.length / 2);
    events.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } }));
    for (const part of [a.slice(0, mid), a.slice(mid)]) events.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } }));
    events.push(ev('content_block_stop', { index }));
    index++;
  }
  events.push(ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }));
  events.push(ev('message_stop', {}));
  const errorEvent = ev('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
  return writeStream(res, rec, s, events, errorEvent);
}

const anthropic: Protocol = {
  prefix: '/v1',
  errorBody: (_status, kind, message) => ({ type: 'error', error: { type: _status === 529 ? 'overloaded_error' : TYPES[kind], message } }),
  checkAuth(req, res, key) {
    const given = req.headers['x-api-key'];
    if (!given || (key !== undefined && given !== key)) {
      sendJson(res, 401, anthropic.errorBody(401, 'auth', 'invalid x-api-key'));
      return true;
    }
    if (!req.headers['anthropic-version']) {
      sendJson(res, 400, anthropic.errorBody(400, 'invalid', 'anthropic-version: header is required'));
      return true;
    }
    return false;
  },
  handle(req, res, s) {
    const path = req.path.split('?')[0]!;
    if (req.method === 'POST' && path.endsWith('/messages')) return messages(req, res, s);
    if (req.method === 'GET' && path.endsWith('/models')) {
      const ids = s.models ?? ['claude-fake-4', 'claude-fake-haiku'];
      return sendJson(res, 200, {
        data: ids.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-01-01T00:00:00Z' })),
        has_more: false, first_id: ids[0] ?? null, last_id: ids[ids.length - 1] ?? null,
      });
    }
    notFound(anthropic, res, path);
  },
};

export function fakeAnthropic(opts?: FakeOptions): Promise<FakeUpstream> {
  return startFake(anthropic, opts);
}
