/**
 * A fake OpenAI-compatible server with OpenAI's include_usage rule: `usage: null` on every
 * chunk, then a `choices: []` chunk with the usage, only when asked.
 */
import type { ServerResponse } from 'node:http';
import {
  notFound, piecesOf, sendJson, startFake, vectorFor, writeStream,
  type FakeOptions, type FakeScript, type FakeUpstream, type Protocol, type RecordedRequest,
} from './fake-upstream.ts';

const TYPES = { auth: 'invalid_request_error', server: 'server_error', rate: 'requests', invalid: 'invalid_request_error', notfound: 'invalid_request_error' } as const;
const CODES = { auth: 'invalid_api_key', server: null, rate: 'rate_limit_exceeded', invalid: null, notfound: 'unknown_url' } as const;

let seq = 0;

function usageOf(s: FakeScript) {
  const u = s.usage ?? {};
  const cached = u.cached ?? 0;
  const prompt = (u.input ?? 10) + cached + (u.cacheCreation ?? 0);
  const completion = u.output ?? 5;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: u.reasoning ?? 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

function chat(rec: RecordedRequest, res: ServerResponse, s: FakeScript) {
  const b = rec.body;
  if (!b || typeof b.model !== 'string' || !Array.isArray(b.messages)) {
    return sendJson(res, 400, openai.errorBody(400, 'invalid', "you must provide a model parameter and messages"));
  }
  const id = `chatcmpl-fake${++seq}`;
  const created = Math.floor(Date.now() / 1000);
  const model = s.model ?? b.model;
  const text = s.text ?? (s.toolCalls ? '' : 'Hello from the fake.');
  const tools = (s.toolCalls ?? []).map((t, i) => ({ id: t.id ?? `call_fake${i}`, type: 'function', function: { name: t.name, arguments: t.arguments } }));
  const finish = s.finishReason ?? (tools.length ? 'tool_calls' : 'stop');

  if (!b.stream) {
    const message: Record<string, unknown> = { role: 'assistant', content: text || null, refusal: null, annotations: [] };
    if (tools.length) message.tool_calls = tools;
    if (s.thinking) message.reasoning_content = s.thinking;
    return sendJson(res, 200, {
      id, object: 'chat.completion', created, model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
      usage: usageOf(s), service_tier: 'default', system_fingerprint: 'fp_fake',
    });
  }

  const mode = s.streamUsage ?? 'standard';
  const includeUsage = mode === 'standard' && b.stream_options?.include_usage === true;
  const base = (delta: Record<string, unknown>, finishReason: string | null = null) => {
    const c: Record<string, unknown> = {
      id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    };
    if (includeUsage) c.usage = null;
    return c;
  };
  const ev = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
  const events: string[] = [ev(base({ role: 'assistant', content: '', refusal: null }))];
  if (s.thinking) for (const p of piecesOf({}, s.thinking)) events.push(ev(base({ reasoning_content: p })));
  for (const p of text ? piecesOf(s, text) : []) events.push(ev(base({ content: p })));
  tools.forEach((t, i) => {
    events.push(ev(base({ tool_calls: [{ index: i, id: t.id, type: 'function', function: { name: t.function.name, arguments: '' } }] })));
    const a = t.function.arguments;
    const mid = Math.ceil(a.length / 2);
    for (const part of [a.slice(0, mid), a.slice(mid)]) if (part) events.push(ev(base({ tool_calls: [{ index: i, function: { arguments: part } }] })));
  });
  const last = base({}, finish);
  if (mode === 'last-chunk') last.usage = usageOf(s);
  events.push(ev(last));
  if (includeUsage) events.push(ev({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices: [], usage: usageOf(s) }));
  events.push('data: [DONE]\n\n');
  const errorEvent = ev({ error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } });
  return writeStream(res, rec, s, events, errorEvent);
}

function embeddings(rec: RecordedRequest, res: ServerResponse, s: FakeScript) {
  const b = rec.body;
  if (!b || typeof b.model !== 'string' || b.input === undefined) {
    return sendJson(res, 400, openai.errorBody(400, 'invalid', "'input' is a required property"));
  }
  const inputs: unknown[] = Array.isArray(b.input) && typeof b.input[0] !== 'number' ? b.input : [b.input];
  const dims = b.dimensions ?? s.embeddingDims ?? 8;
  let tokens = 0;
  const data = inputs.map((inp, index) => {
    const str = typeof inp === 'string' ? inp : JSON.stringify(inp);
    tokens += str.split(/\s+/).filter(Boolean).length || 1;
    const v = vectorFor(str, dims);
    const embedding = b.encoding_format === 'base64' ? f32base64(v) : v;
    return { object: 'embedding', index, embedding };
  });
  sendJson(res, 200, { object: 'list', data, model: s.model ?? b.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
}

export function f32base64(v: number[]): string {
  const buf = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => buf.writeFloatLE(x, i * 4));
  return buf.toString('base64');
}

const openai: Protocol = {
  prefix: '/v1',
  errorBody: (_status, kind, message) => ({ error: { message, type: TYPES[kind], param: null, code: CODES[kind] } }),
  checkAuth(req, res, key) {
    if (key === undefined || req.headers.authorization === `Bearer ${key}`) return false;
    sendJson(res, 401, openai.errorBody(401, 'auth', 'Incorrect API key provided.'));
    return true;
  },
  handle(req, res, s) {
    const path = req.path.split('?')[0]!;
    if (req.method === 'POST' && path.endsWith('/chat/completions')) return chat(req, res, s);
    if (req.method === 'POST' && path.endsWith('/embeddings')) return embeddings(req, res, s);
    if (req.method === 'GET' && path.endsWith('/models')) {
      const ids = s.models ?? ['gpt-fake-mini', 'gpt-fake'];
      return sendJson(res, 200, { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'fake' })) });
    }
    notFound(openai, res, path);
  },
};

export function fakeOpenAi(opts?: FakeOptions): Promise<FakeUpstream> {
  return startFake(openai, opts);
}
