// The node:http fast path for POST /api/v1/chat/completions (daemon/routes/v1/fast-chat.ts) against the Hono
// route it stands in for: the same app and core served twice, fast path on and off, each case sent
// to both, and status, headers, body, access-log line, error logging and HTTP metrics compared.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createApp } from '../../daemon/app.ts';
import { startServer, type ServerHandle } from '../../daemon/server.ts';
import { fakeOpenAi, type FakeScript, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { testCore, type Fixture } from './http-fixture.ts';
import { cast, json } from './people.ts';

const LIMIT = 4096;
const PATH = '/api/v1/chat/completions';

interface Seen {
  status: number;
  headers: Record<string, string>;
  body: string;
  log: Record<string, unknown> | undefined;
  errorLines: number;
  metricDelta: number;
}

describe('chat fast path ≡ Hono route', () => {
  let fx: Fixture;
  let fake: FakeUpstream;
  let key: string;
  let fast: ServerHandle;
  let hono: ServerHandle;

  beforeAll(async () => {
    fx = await testCore({ env: { SERVICE_GATEWAY_BODY_LIMIT_BYTES: String(LIMIT), SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
    const people = await cast(fx.core);
    const app = createApp(fx.core, fx.services);
    fake = await fakeOpenAi();
    const owner = people.owner.headers({ workspace: people.workspace });
    const acct = await app.request('/api/app/provider-accounts', json('POST', { provider: 'openai-compatible', name: 'Fake', slug: 'fake', baseUrl: fake.url, models: ['gpt-test'] }, owner));
    assert.equal(acct.status, 201, await acct.text());
    const k = await app.request('/api/app/keys', json('POST', { name: 'k' }, people.member.headers({ workspace: people.workspace })));
    key = ((await k.json()) as { token: string }).token;
    fast = await startServer(fx.core, fx.services, { port: 0, host: '127.0.0.1', app });
    hono = await startServer(fx.core, fx.services, { port: 0, host: '127.0.0.1', app, fastPath: false });
  });

  afterAll(async () => {
    await fast.close(1000);
    await hono.close(1000);
    await fake.close();
    await fx.cleanup();
  });

  const auth = () => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
  const chat = (extra: Record<string, unknown> = {}) => JSON.stringify({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'hi' }], ...extra });

  async function counter(status: number): Promise<number> {
    const { values } = await fx.core.metrics.httpRequests.get();
    for (const v of values) if (v.labels.route === PATH && v.labels.status === String(status) && v.labels.method === 'POST') return v.value;
    return 0;
  }

  async function send(server: ServerHandle, init: RequestInit & { path?: string }, script?: FakeScript): Promise<Seen> {
    if (script) fake.once(script);
    const logsBefore = fx.logs.length;
    const before = new Map(await Promise.all([200, 400, 401, 403, 404, 413, 415, 429, 500, 502].map(async (s) => [s, await counter(s)] as const)));
    const res = await fetch(`http://127.0.0.1:${server.port}${init.path ?? PATH}`, { method: 'POST', ...init });
    const body = await res.text();
    await new Promise((r) => setTimeout(r, 10)); // a stream's usage is recorded as it ends
    const id = res.headers.get('x-request-id');
    const lines = fx.logs.slice(logsBefore).filter((l) => l.requestId === id);
    const log = lines.find((l) => l.msg === 'request');
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      if (k === 'date' || k === 'x-request-id') return;
      // Both servers share one quota state, so the figures move between the two answers.
      headers[k] = k.startsWith('x-ratelimit-reset-') ? 'D' : k.startsWith('x-ratelimit-') ? v.replace(/\d+/g, 'N') : v;
    });
    return {
      status: res.status,
      headers,
      body: body.replace(/chatcmpl-fake\d+/g, 'ID').replace(/"created":\d+/g, '"created":T'),
      log: log && { ...log, time: undefined, durationMs: undefined, requestId: undefined },
      errorLines: lines.filter((l) => l.level === 'error').length,
      metricDelta: (await counter(res.status)) - (before.get(res.status) ?? 0),
    };
  }

  async function same(what: string, init: RequestInit & { path?: string }, script?: FakeScript): Promise<Seen> {
    const a = await send(fast, init, script);
    const b = await send(hono, init, script);
    assert.deepEqual(a, b, what);
    assert.equal(a.metricDelta, 1, `${what}: one HTTP request counted`);
    assert.ok(a.log, `${what}: an access-log line`);
    return a;
  }

  test('a served call: body, x-svc-model, rate-limit headers, log line', async () => {
    const s = await same('non-streamed', { headers: auth(), body: chat() });
    assert.equal(s.status, 200);
    assert.equal(s.headers['x-svc-model'], 'fake/gpt-test');
    assert.equal(s.log!.route, PATH);
    await same('query string', { headers: auth(), body: chat(), path: `${PATH}?x=1` });
    await same('BOM before the JSON', { headers: auth(), body: `\uFEFF${chat()}` });
  });

  test('a stream: SSE headers, every event, [DONE]', async () => {
    const s = await same('streamed', { headers: auth(), body: chat({ stream: true, stream_options: { include_usage: true } }) });
    assert.match(s.headers['content-type']!, /^text\/event-stream/);
    assert.ok(s.body.endsWith('data: [DONE]\n\n'));
    const broken = await same('broken mid-stream', { headers: auth(), body: chat({ stream: true }) }, { fault: 'stream-error', afterChunks: 1 });
    assert.match(broken.body, /"error"/);
  });

  test('a stream: the 200 and its headers reach the client while the model is still thinking', async () => {
    for (const server of [fast, hono]) {
      const name = server === fast ? 'fast path' : 'Hono';
      // The fake holds its first event until the client has the headers: no timing bound needed. A
      // gateway that waits for the first event before answering never lets fetch() resolve.
      let release!: () => void;
      fake.once({ text: 'late words', firstChunkGate: new Promise<void>((r) => (release = r)) });
      const pending = fetch(`http://127.0.0.1:${server.port}${PATH}`, { method: 'POST', headers: auth(), body: chat({ stream: true }) });
      let timer: NodeJS.Timeout | undefined;
      const res = await Promise.race([
        pending,
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${name}: no headers while the first event was held`)), 10_000))),
      ]).finally(() => {
        clearTimeout(timer);
        release();
      });
      assert.equal(res.status, 200, name);
      assert.match(res.headers.get('content-type')!, /^text\/event-stream/);
      const body = await res.text();
      assert.match(body, /late /, `${name}: the held event arrives after release`);
      assert.ok(body.endsWith('data: [DONE]\n\n'));
    }
  });

  test('an incoming x-request-id is kept by both', async () => {
    for (const server of [fast, hono]) {
      const res = await fetch(`http://127.0.0.1:${server.port}${PATH}`, { method: 'POST', headers: { ...auth(), 'x-request-id': 'trace-1' }, body: chat() });
      await res.arrayBuffer();
      assert.equal(res.headers.get('x-request-id'), 'trace-1');
    }
  });

  test('refusals before the route: 401 missing and wrong key, 413 declared and streamed', async () => {
    assert.equal((await same('no key', { headers: { 'content-type': 'application/json' }, body: chat() })).status, 401);
    const wrong = await same('wrong key', { headers: { ...auth(), authorization: 'Bearer svc_live_nope' }, body: chat() });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.log!.route, '/api/v1/*');
    // The host check (DNS rebinding, daemon/host-check.ts) runs first, app-wide, on both paths.
    const cross = await same('cross-site Origin', { headers: { ...auth(), origin: 'https://evil.example' }, body: 'x'.repeat(LIMIT + 1) });
    assert.equal(cross.status, 403);
    assert.equal(cross.log!.route, '/*');
    assert.match(cross.body, /"code":"origin_refused"/);
    const declared = await same('declared too large', { headers: auth(), body: 'x'.repeat(LIMIT + 1) });
    assert.equal(declared.status, 413);
    assert.equal(declared.log!.route, '/*');
    const big = new TextEncoder().encode(chat({ pad: 'x'.repeat(LIMIT) }));
    const chunked = () => new ReadableStream({ start(c) { c.enqueue(big.slice(0, 100)); c.enqueue(big.slice(100)); c.close(); } });
    const a = await send(fast, { headers: auth(), body: chunked(), duplex: 'half' } as RequestInit);
    const b = await send(hono, { headers: auth(), body: chunked(), duplex: 'half' } as RequestInit);
    assert.deepEqual(a, b, 'chunked too large');
    assert.equal(a.status, 413);
  });

  test('bad bodies: 415, empty, malformed, invalid fields — with rate-limit headers', async () => {
    assert.equal((await same('text/plain', { headers: { ...auth(), 'content-type': 'text/plain' }, body: chat() })).status, 415);
    assert.equal((await same('empty', { headers: auth(), body: '' })).status, 400);
    assert.equal((await same('malformed', { headers: auth(), body: '{"model":' })).status, 400);
    const invalid = await same('no messages', { headers: auth(), body: chat({ messages: [] }) });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.headers['x-ratelimit-limit-requests'], 'N', 'refused before admission, still with the key standing');
    assert.equal((await same('unknown model', { headers: auth(), body: chat({ model: 'fake/nope' }) })).status, 404);
  });

  test('upstream failures: 5xx (logged), 429 with retry-after', async () => {
    const five = await same('upstream 500', { headers: auth(), body: chat() }, { fault: '5xx' });
    assert.ok(five.status >= 500);
    assert.equal(five.errorLines, 1, 'a 5xx is logged once');
    assert.equal(five.log!.level, 'warn');
    const rate = await same('upstream 429', { headers: auth(), body: chat() }, { fault: '429', retryAfter: '7' });
    assert.equal(rate.status, 429);
  });
});
