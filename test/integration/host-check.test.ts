// DNS rebinding (issue 12 item 2) against the real server: a page that rebinds its own name to
// 127.0.0.1 sends that name as Host, and a cross-site page sends its own Origin. Neither may claim
// a fresh install (register the bootstrap owner), on the Hono app nor on the node:http fast lane
// (chat completions; health probes are answered for any Host). Host values are set with node:http,
// since fetch() always sends the URL's own.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { createApp } from '../../daemon/app.ts';
import { startServer, type ServerHandle } from '../../daemon/server.ts';
import { userCount } from './accounts-helpers.ts';
import { testCore, type Fixture } from './http-fixture.ts';

interface Answer {
  status: number;
  body: string;
}

function send(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends bytes as written (node:http refuses a repeated Host) and returns the status line. */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text));
    let got = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (got += c));
    socket.on('end', () => resolve(got.split('\r\n')[0]!));
    socket.on('error', reject);
  });
}

const REGISTER = JSON.stringify({ email: 'first@example.test', password: 'correct horse battery' });
const CHAT = JSON.stringify({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'hi' }] });

for (const trustProxy of [false, true]) {
  describe(`Host and Origin checks through the real server (SERVICE_TRUST_PROXY=${trustProxy})`, () => {
    let fx: Fixture;
    let fast: ServerHandle;
    let hono: ServerHandle;
    let lazy: ServerHandle; // no app given: health probes answered before the app loads
    beforeAll(async () => {
      fx = await testCore({ env: { SERVICE_APP_ORIGIN: 'https://svc.example.com', SERVICE_PREVIEW_ORIGIN: 'https://preview.example.com', SERVICE_TRUST_PROXY: String(trustProxy) } });
      const app = createApp(fx.core, fx.services);
      fast = await startServer(fx.core, fx.services, { port: 0, host: '127.0.0.1', app });
      hono = await startServer(fx.core, fx.services, { port: 0, host: '127.0.0.1', app, fastPath: false });
      lazy = await startServer(fx.core, fx.services, { port: 0, host: '127.0.0.1' });
    });
    afterAll(async () => {
      await Promise.all([fast.close(1000), hono.close(1000), lazy.close(1000)]);
      await fx.cleanup();
    });

    const code = (a: Answer) => (JSON.parse(a.body) as { error: { code: string } }).error.code;

    test('a rebound name cannot register the bootstrap owner of a fresh store: 421, nothing created', async () => {
      for (const host of ['evil.example', `evil.example:${fast.port}`, 'localhost.evil.example', '127.0.0.1.nip.io', 'svc.example.com.evil.example']) {
        const a = await send(fast.port, 'POST', '/api/auth/register', { host }, REGISTER);
        assert.equal(a.status, 421, `${host}: ${a.body}`);
        assert.equal(code(a), 'misdirected_request');
      }
      assert.equal(await userCount(fx.core), 0);
    });

    test('a cross-site Origin (or null) on a state-changing request: 403 origin_refused, nothing created', async () => {
      for (const origin of ['https://evil.example', 'null', 'https://preview.example.com', `http://127.0.0.1:${fast.port + 1}`]) {
        const a = await send(fast.port, 'POST', '/api/auth/register', { host: `127.0.0.1:${fast.port}`, origin }, REGISTER);
        assert.equal(a.status, 403, `${origin}: ${a.body}`);
        assert.equal(code(a), 'origin_refused');
      }
      assert.equal(await userCount(fx.core), 0);
    });

    test('two Host headers, one ours and one not, are refused on both paths', async () => {
      for (const s of [fast, hono]) {
        const head = await raw(s.port, `POST /api/v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\nAuthorization: Bearer svc_live_x\r\nContent-Type: application/json\r\nContent-Length: ${CHAT.length}\r\nConnection: close\r\n\r\n${CHAT}`);
        assert.match(head, /^HTTP\/1\.1 (421|400) /, head);
      }
    });

    test('every other page and route refuses a foreign Host too', async () => {
      for (const [method, path] of [['GET', '/'], ['GET', '/sign-up'], ['GET', '/api/auth/session'], ['GET', '/api/activation'], ['GET', '/api/v1/models']] as const) {
        assert.equal((await send(fast.port, method, path, { host: 'evil.example' })).status, 421, `${method} ${path}`);
      }
    });

    test('the chat fast lane refuses a foreign Host and a cross-site Origin exactly as the Hono route does', async () => {
      for (const headers of [{ host: 'evil.example' }, { host: `localhost:${fast.port}`, origin: 'https://evil.example' }] as Record<string, string>[]) {
        const [a, b] = await Promise.all([fast, hono].map((s) => send(s.port, 'POST', '/api/v1/chat/completions', { ...headers, authorization: 'Bearer svc_live_x' }, CHAT)));
        assert.deepEqual(a, b);
        assert.equal(a!.status, headers.origin ? 403 : 421);
        // Under /api/v1 the error has OpenAI's shape.
        const err = (JSON.parse(a!.body) as { error: { type: string; code: string } }).error;
        assert.equal(err.code, headers.origin ? 'origin_refused' : 'misdirected_request');
        assert.ok(err.type);
      }
    });

    test('health probes answer any Host (orchestrators send the replica IP), before and after the app loads', async () => {
      for (const s of [lazy, fast, hono]) {
        for (const path of ['/api/health', '/api/health/live', '/api/health/ready']) {
          assert.equal((await send(s.port, 'GET', path, { host: '10.1.2.3:8484' })).status, 200, path);
        }
      }
    });

    test('X-Forwarded-Host: ignored when the proxy is not trusted; its last entry must pass when it is', async () => {
      const a = await send(fast.port, 'GET', '/sign-in', { host: `127.0.0.1:${fast.port}`, 'x-forwarded-host': 'evil.example' });
      assert.equal(a.status, trustProxy ? 421 : 200);
      const b = await send(fast.port, 'GET', '/sign-in', { host: `127.0.0.1:${fast.port}`, 'x-forwarded-host': 'evil.example, svc.example.com' });
      assert.equal(b.status, 200);
    });

    test('the app origin and loopback names are answered; a same-origin loopback form registers', async () => {
      for (const host of ['svc.example.com', 'SVC.example.com.', 'svc.example.com:443', `localhost:${fast.port}`, 'LOCALHOST.', 'x.localhost', '127.0.0.1', '127.3.2.1:1', '[::1]']) {
        assert.equal((await send(fast.port, 'GET', '/sign-in', { host })).status, 200, host);
      }
      const ok = await send(fast.port, 'POST', '/api/auth/register', { host: `127.0.0.1:${fast.port}`, origin: `http://127.0.0.1:${fast.port}` }, REGISTER);
      assert.equal(ok.status, 201, ok.body);
      assert.equal(await userCount(fx.core), 1);
      // The app origin itself (behind a TLS proxy that keeps the Host), no Origin (curl, SDKs): fine.
      const login = JSON.stringify({ email: 'first@example.test', password: 'correct horse battery' });
      assert.equal((await send(fast.port, 'POST', '/api/auth/login', { host: 'svc.example.com', origin: 'https://svc.example.com' }, login)).status, 200);
      assert.equal((await send(fast.port, 'POST', '/api/auth/login', { host: 'svc.example.com' }, login)).status, 200);
    });
  });
}
