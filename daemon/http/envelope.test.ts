// The envelope on both stacks: one app served with its fast lane and without it, the same requests
// sent to both, and the request id, access line, metric and error bytes compared.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { AppError } from '../../core/kernel/errors.ts';
import { testCore, type Fixture } from '../../test/integration/http-fixture.ts';
import { createApp } from '../app.ts';
import { bearerAuth } from './bearer.ts';
import { startServer, type ServerHandle } from '../server.ts';
import { errorBody } from './envelope.ts';

const LIMIT = 4096;
const CHAT = '/api/v1/chat/completions';
type Head = Record<string, string | string[]>;
const JSON_TYPE = { 'content-type': 'application/json' };

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** node:http, not fetch: an array value goes out as repeated header lines. */
function send(port: number, method: string, path: string, headers: Head, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Case {
  name: string;
  method: string;
  path: string;
  headers: Head;
  body?: string;
}

// Answered by the fast lane when it is on: health, readiness, and chat refused at each layer.
const CASES: Case[] = [
  { name: 'health', method: 'GET', path: '/api/health', headers: {} },
  { name: 'ready', method: 'GET', path: '/api/health/ready', headers: {} },
  { name: 'chat, no key (401)', method: 'POST', path: CHAT, headers: JSON_TYPE, body: '{}' },
  { name: 'chat, malformed key (401)', method: 'POST', path: CHAT, headers: { ...JSON_TYPE, authorization: 'Bearer svc_live_nope' }, body: '{}' },
  { name: 'chat, cross-site Origin (403)', method: 'POST', path: CHAT, headers: { ...JSON_TYPE, origin: 'https://evil.example' }, body: '{}' },
  { name: 'chat, declared too large (413)', method: 'POST', path: CHAT, headers: JSON_TYPE, body: 'x'.repeat(LIMIT + 1) },
];

describe('envelope: fast lane ≡ Hono', () => {
  let fx: Fixture;
  let fast: ServerHandle;
  let hono: ServerHandle;

  beforeAll(async () => {
    fx = await testCore({ env: { SERVICE_GATEWAY_BODY_LIMIT_BYTES: String(LIMIT) } });
    const app = createApp(fx.core, fx.services);
    assert.ok(app.fastLane, 'createApp hands its fast lane on');
    fast = await startServer(fx.core, fx.services, { port: 0, host: '127.0.0.1', app });
    hono = await startServer(fx.core, fx.services, { port: 0, host: '127.0.0.1', app, fastPath: false });
  });
  afterAll(async () => {
    await fast.close(1000);
    await hono.close(1000);
    await fx.cleanup();
  });

  const accessLine = (id: unknown) => fx.logs.find((l) => l.msg === 'request' && l.requestId === id);

  /** Every HTTP series' count, by its labels. */
  async function counts(): Promise<Map<string, number>> {
    const { values } = await fx.core.metrics.httpRequests.get();
    return new Map(values.map((v) => [`${v.labels.method} ${v.labels.route} ${v.labels.status}`, v.value]));
  }
  const moved = (a: Map<string, number>, b: Map<string, number>) => [...b].filter(([k, v]) => v !== (a.get(k) ?? 0)).map(([k, v]) => `${k} +${v - (a.get(k) ?? 0)}`);

  test('request id: a valid incoming one is kept, anything else replaced, on both', async () => {
    const incoming: Array<[string, string[], 'kept' | 'new']> = [
      ['valid', ['trace-1.a:b_c'], 'kept'],
      ['none', [], 'new'],
      ['with a space', ['bad id'], 'new'],
      ['129 characters', ['a'.repeat(129)], 'new'],
      ['sent twice', ['one', 'two'], 'new'],
    ];
    for (const c of CASES) {
      for (const [what, ids, expected] of incoming) {
        const seen = [];
        for (const server of [fast, hono]) {
          const a = await send(server.port, c.method, c.path, { ...c.headers, ...(ids.length ? { 'x-request-id': ids } : {}) }, c.body);
          const id = a.headers['x-request-id'] as string;
          const kind = id === ids[0] ? 'kept' : /^req_[0-9a-f]{32}$/.test(id) ? 'new' : id;
          assert.ok(accessLine(id), `${c.name}, ${what}: the access line carries the answer's id`);
          seen.push(kind);
        }
        assert.deepEqual(seen, [expected, expected], `${c.name}, ${what} (fast lane, Hono)`);
      }
    }
  });

  test('access line and metric: same fields in the same order, the same series counted once', async () => {
    for (const c of CASES) {
      const seen = [];
      for (const [i, server] of [fast, hono].entries()) {
        const id = `line-${i}-${c.name.replace(/[^a-z0-9]/gi, '_')}`;
        const before = await counts();
        const a = await send(server.port, c.method, c.path, { ...c.headers, 'x-request-id': id }, c.body);
        const line = accessLine(id);
        assert.ok(line, `${c.name}: an access line`);
        assert.equal(typeof line.durationMs, 'number');
        assert.equal(line.status, a.status);
        const metric = moved(before, await counts());
        assert.equal(metric.length, 1, `${c.name}: one series moved`);
        seen.push({ line: Object.entries(line).filter(([k]) => k !== 'time' && k !== 'durationMs' && k !== 'requestId'), metric });
      }
      assert.deepEqual(seen[0], seen[1], c.name);
    }
  });

  test('error body: the same bytes and headers on both, the bytes errorBody writes', async () => {
    for (const c of CASES.filter((x) => x.name.startsWith('chat'))) {
      const [a, b] = [await send(fast.port, c.method, c.path, c.headers, c.body), await send(hono.port, c.method, c.path, c.headers, c.body)];
      assert.equal(a.status, b.status, c.name);
      assert.equal(a.body, b.body, c.name);
      for (const h of ['content-type', 'content-length']) assert.equal(a.headers[h], b.headers[h], `${c.name}: ${h}`);
    }
    // OpenAI's shape on the gateway: the bearer refusal as errorBody renders it.
    const refusal = await bearerAuth(fx.core, fx.services.credentials, 'member')(undefined).then(
      () => assert.fail('no key is refused'),
      (e: unknown) => e as AppError,
    );
    const a = await send(fast.port, 'POST', CHAT, JSON_TYPE, '{}');
    assert.equal(a.body, errorBody(true, refusal, undefined));
    // The app shape elsewhere (Hono only), with the request id in it.
    const nf = await send(hono.port, 'GET', '/api/nope', { 'x-request-id': 'nf-1' });
    assert.equal(nf.body, errorBody(false, new AppError('not_found', 'No route for GET /api/nope.'), 'nf-1'));
  });
});
