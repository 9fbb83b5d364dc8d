import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { z } from 'zod';
import { createApp } from '../../daemon/app.ts';
import { readJson } from '../../daemon/http/json-body.ts';
import { SERVER_TIMEOUTS, startServer } from '../../daemon/server.ts';
import { sqliteCore, type Fixture } from './http-fixture.ts';

/** One request on its own connection (no shared agent), so socket handling is deterministic. */
function get(port: number, path: string): Promise<{ status: number; body: string; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('server drain', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await sqliteCore();
  });
  afterAll(() => fx.cleanup());

  /** An app whose /api/test/slow waits until the test releases it, and says when it is in flight. */
  function slowApp() {
    let entered!: () => void;
    const inFlight = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const app = createApp(fx.core, fx.services, {
      routes: (a) =>
        a.get('/api/test/slow', async (c) => {
          entered();
          await released;
          return c.json({ finished: true });
        }),
    });
    return { app, inFlight, release };
  }

  test('applies the documented timeouts', async () => {
    const handle = await startServer(fx.core, fx.services, { port: 0, host: '127.0.0.1' });
    try {
      assert.equal(handle.server.headersTimeout, SERVER_TIMEOUTS.headersTimeout);
      assert.equal(handle.server.requestTimeout, SERVER_TIMEOUTS.requestTimeout);
      assert.equal(handle.server.keepAliveTimeout, SERVER_TIMEOUTS.keepAliveTimeout);
      assert.equal(handle.server.timeout, 0);
      const res = await get(handle.port, '/api/health');
      assert.equal(res.status, 200);
    } finally {
      await handle.close(1000);
    }
  });

  test('close() lets an in-flight request finish and refuses new connections', async () => {
    const { app, inFlight, release } = slowApp();
    const handle = await startServer(fx.core, fx.services, { port: 0, host: '127.0.0.1', app });
    const slow = get(handle.port, '/api/test/slow');
    await inFlight;
    const closed = handle.close(5000);
    await assert.rejects(get(handle.port, '/api/health'), /ECONNREFUSED/);
    release();
    const res = await slow;
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.body), { finished: true });
    assert.deepEqual(await closed, { forced: false });
  });

  test('over real HTTP, a chunked body past the limit is a 413 and a small one is read', async () => {
    const app = createApp(fx.core, fx.services, {
      routes: (a) => a.post('/api/test/echo', async (c) => c.json(await readJson(c, z.object({ s: z.string() })))),
    });
    const handle = await startServer(fx.core, fx.services, { port: 0, host: '127.0.0.1', app });
    try {
      const url = `http://127.0.0.1:${handle.port}/api/test/echo`;
      const limit = fx.core.config.SERVICE_BODY_LIMIT_BYTES;
      const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(c) {
          if (sent === 0) c.enqueue(new TextEncoder().encode('{"s":"'));
          if (sent > limit * 2) return c.close();
          sent += chunk.byteLength;
          c.enqueue(chunk);
        },
      });
      const big = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, duplex: 'half' } as RequestInit);
      assert.equal(big.status, 413);
      assert.equal(((await big.json()) as { error: { code: string } }).error.code, 'payload_too_large');
      const small = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"s":"ok"}' });
      assert.equal(small.status, 200);
      assert.deepEqual(await small.json(), { s: 'ok' });
    } finally {
      await handle.close(1000);
    }
  });

  test('over real HTTP, a Content-Length smaller than the body lets no more than it declares through', async () => {
    let seen = -1;
    const app = createApp(fx.core, fx.services, {
      routes: (a) => a.post('/api/test/len', async (c) => {
        seen = (await c.req.arrayBuffer()).byteLength;
        return c.json({ seen });
      }),
    });
    const handle = await startServer(fx.core, fx.services, { port: 0, host: '127.0.0.1', app });
    try {
      const { connect } = await import('node:net');
      const extra = 'x'.repeat(fx.core.config.SERVICE_BODY_LIMIT_BYTES * 2);
      // Node refuses the surplus as a malformed next request and may reset the socket for it.
      const answer = await new Promise<string>((resolve) => {
        const sock = connect(handle.port, '127.0.0.1', () => {
          sock.end(`POST /api/test/len HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 4\r\n\r\n{}{}${extra}`);
        });
        let out = '';
        sock.on('data', (d) => (out += d.toString()));
        sock.on('close', () => resolve(out));
        sock.on('error', () => resolve(out));
      });
      assert.equal(seen, 4, 'the handler read exactly the declared bytes');
      assert.doesNotMatch(answer, /HTTP\/1\.1 (413|5\d\d)/);
    } finally {
      await handle.close(1000);
    }
  });

  test('idle keep-alive connections do not hold up close()', async () => {
    const handle = await startServer(fx.core, fx.services, { port: 0, host: '127.0.0.1' });
    const agent = new Agent({ keepAlive: true });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        request({ host: '127.0.0.1', port: handle.port, path: '/api/health', agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        }).on('error', reject).end();
      });
      assert.equal(status, 200);
      const t0 = performance.now();
      assert.deepEqual(await handle.close(5000), { forced: false });
      assert.ok(performance.now() - t0 < 3000, "closed without waiting for the 5 s deadline");
    } finally {
      agent.destroy();
    }
  });

  test('at the deadline the remaining connections are cut', async () => {
    const { app, inFlight, release } = slowApp();
    const handle = await startServer(fx.core, fx.services, { port: 0, host: '127.0.0.1', app });
    const slow = get(handle.port, '/api/test/slow');
    await inFlight;
    const t0 = performance.now();
    const result = await handle.close(200);
    const took = performance.now() - t0;
    assert.deepEqual(result, { forced: true });
    assert.ok(took >= 190 && took < 3000, `closed after ${took} ms`);
    await assert.rejects(slow, /socket hang up|ECONNRESET/);
    release();
  });
});

describe('server without a caller-built app (what `svc serve` runs)', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await sqliteCore();
  });
  afterAll(() => fx.cleanup());

  test('probes are answered before the app exists; the first other request builds it', async () => {
    const handle = await startServer(fx.core, fx.services, { port: 0, host: '127.0.0.1' });
    try {
      for (const path of ['/api/health', '/api/health/live', '/api/health/ready']) {
        const res = await get(handle.port, path);
        assert.equal(res.status, 200, path);
      }
      // Not probes: these wait for the app to be imported and built, even when they arrive together.
      const [a, b, c] = await Promise.all([
        get(handle.port, '/api/no-such-route'),
        get(handle.port, '/api/no-such-route'),
        get(handle.port, '/api/health?probe=1'),
      ]);
      assert.equal(a.status, 404);
      assert.equal(JSON.parse(a.body).error.code, 'not_found');
      assert.equal(b.status, 404);
      assert.equal(c.status, 200);
      // The Hono app answers now: HEAD goes through it (the fast paths take only GET).
      const head = await fetch(`http://127.0.0.1:${handle.port}/api/health`, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal((await get(handle.port, '/api/health/ready')).status, 200);
    } finally {
      await handle.close(1000);
    }
  });
});
