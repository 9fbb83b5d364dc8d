// The node:http fast path for the liveness routes (daemon/http/fast-lane.ts) against the Hono routes
// it stands in for: one app served twice, fast path on and off, and status, headers, body, the
// access-log line and the HTTP metrics compared.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createApp } from '../../daemon/app.ts';
import { startServer, type ServerHandle } from '../../daemon/server.ts';
import { testCore, type Fixture } from './http-fixture.ts';

describe('health fast path ≡ Hono route', () => {
  let fx: Fixture;
  let fast: ServerHandle;
  let hono: ServerHandle;

  beforeAll(async () => {
    fx = await testCore();
    const app = createApp(fx.core, fx.services);
    fast = await startServer(fx.core, fx.services, { port: 0, host: '127.0.0.1', app });
    hono = await startServer(fx.core, fx.services, { port: 0, host: '127.0.0.1', app, fastPath: false });
  });
  afterAll(async () => {
    await fast.close(1000);
    await hono.close(1000);
    await fx.cleanup();
  });

  async function count(route: string): Promise<number> {
    const { values } = await fx.core.metrics.httpRequests.get();
    for (const v of values) if (v.labels.route === route && v.labels.status === '200' && v.labels.method === 'GET') return v.value;
    return 0;
  }

  async function seen(server: ServerHandle, path: string, headers: Record<string, string> = {}) {
    const before = fx.logs.length;
    const metric = await count(path.split('?')[0]!);
    const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { headers });
    const body = await res.text();
    const h = Object.fromEntries([...res.headers].filter(([k]) => !['date', 'connection', 'keep-alive', 'x-request-id'].includes(k)));
    const log = fx.logs.slice(before).find((l) => l.msg === 'request');
    const { time: _t, durationMs: _d, requestId, ...line } = log ?? {};
    return { status: res.status, headers: h, body, requestId: res.headers.get('x-request-id'), logId: requestId, line, metric: (await count(path.split('?')[0]!)) - metric };
  }

  for (const path of ['/api/health', '/api/health/live']) {
    test(`GET ${path}: same answer, request id, log line and metrics`, async () => {
      const a = await seen(fast, path, { 'x-request-id': 'probe-1' });
      const b = await seen(hono, path, { 'x-request-id': 'probe-1' });
      assert.deepEqual({ ...a, requestId: undefined, logId: undefined }, { ...b, requestId: undefined, logId: undefined });
      assert.equal(a.requestId, 'probe-1');
      assert.equal(a.logId, 'probe-1');
      assert.equal(a.metric, 1);
      assert.deepEqual(JSON.parse(a.body), { status: 'ok' });
      const g = await seen(fast, path, { 'x-request-id': 'bad id with spaces' });
      assert.match(g.requestId!, /^req_[0-9a-f]{32}$/, 'an invalid incoming id is replaced');
      assert.equal(g.logId, g.requestId);
    });
  }

  test('GET /api/health/ready: same answer, headers, log line and metrics', async () => {
    const a = await seen(fast, '/api/health/ready', { 'x-request-id': 'probe-2' });
    const b = await seen(hono, '/api/health/ready', { 'x-request-id': 'probe-2' });
    assert.deepEqual({ ...a, requestId: undefined, logId: undefined }, { ...b, requestId: undefined, logId: undefined });
    assert.equal(a.status, 200);
    assert.equal(a.headers['cache-control'], 'no-store');
    assert.equal(a.requestId, 'probe-2');
    assert.equal(a.logId, 'probe-2');
    assert.equal(a.metric, 1);
    assert.deepEqual(JSON.parse(a.body), { status: 'ready', checks: { store: 'ok', migrations: 'ok' } });
  });

  test('anything else falls through to Hono (query strings, HEAD)', async () => {
    const q = await fetch(`http://127.0.0.1:${fast.port}/api/health?x=1`);
    assert.equal(q.status, 200);
    const head = await fetch(`http://127.0.0.1:${fast.port}/api/health`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    const ready = await fetch(`http://127.0.0.1:${fast.port}/api/health/ready?x=1`);
    assert.equal(ready.status, 200);
    assert.equal(((await ready.json()) as { status: string }).status, 'ready');
  });
});
