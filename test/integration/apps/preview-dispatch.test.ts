// The preview origin on the shared listener, on both stores: requests are dispatched on the Host
// header (any port, any case, a trailing dot; X-Forwarded-Host only behind a trusted proxy); the
// preview host answers GET/HEAD of /p/{token}/… with DESIGN.md's headers and nothing else — no app
// route, fast path or probe; the app host never serves /p/…; every failure is the same 404 body;
// the access log keeps 4 characters of the token.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { previewKey, signPreviewToken } from '../../../core/apps/token.ts';
import { createCore } from '../../../core/index.ts';
import { openServices } from '../../../core/services.ts';
import type { Dialect } from '../../../core/store/types.ts';
import { startServer, type ServerHandle } from '../../../daemon/server.ts';
import { TEST_SCRYPT } from '../http-fixture.ts';
import { pathOf, startApps, tokenOf, type AppsEnv, type RawOptions } from './setup.ts';

const HTML = '<!doctype html><title>t</title><script src="js/app.js"></script>';
const JS = 'document.title = "ran";';
const NOT_FOUND = '{"error":{"code":"not_found","message":"Not found."}}';

for (const store of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`preview origin dispatch (${store})`, () => {
    let a: AppsEnv;
    let url: string;
    let appId: string;
    let workspaceId: string;
    let proxied: ServerHandle;

    beforeAll(async () => {
      a = await startApps(store);
      const { read } = await a.makeApp({ title: 'Served', files: [{ path: 'index.html', content: HTML }, { path: 'js/app.js', content: JS }, { path: 'data/a b.json', content: '{"x":1}' }] });
      appId = read.apps[0].appId;
      const link = await a.link(appId);
      assert.equal(link.status, 201, link.text);
      url = link.body.url;
      workspaceId = tokenOf(url).split('.')[2]!;
      // A second listener on the same store whose operator said it sits behind a reverse proxy.
      const fx = a.r.g.fx;
      const trusting = createCore({ config: { ...fx.core.config, SERVICE_TRUST_PROXY: true }, secrets: fx.core.secrets, db: fx.core.db, log: fx.core.log, clock: fx.core.clock, scrypt: TEST_SCRYPT, defaultMetrics: false });
      proxied = await startServer(trusting, await openServices(trusting), { port: 0, host: '127.0.0.1' });
    });
    afterAll(async () => {
      await proxied?.close(1000);
      await a.close();
    });

    const sign = (over: Partial<{ appId: string; version: number; workspaceId: string; exp: number }> = {}, secret = a.r.g.core.secrets.SERVICE_PREVIEW_SECRET) =>
      signPreviewToken(previewKey(secret), { appId, version: 1, workspaceId, exp: Math.floor(a.r.g.core.clock.now() / 1000) + 60, ...over });

    test('the link serves its entry with exactly the preview headers, and the app\'s other files', async () => {
      const res = await a.raw(pathOf(url));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.text, HTML);
      const h = res.headers;
      assert.equal(h['content-type'], 'text/html; charset=utf-8');
      assert.equal(h['content-security-policy'], 'sandbox allow-scripts allow-forms allow-popups allow-modals');
      assert.equal(h['referrer-policy'], 'no-referrer');
      assert.equal(h['x-content-type-options'], 'nosniff');
      assert.equal(h['cross-origin-resource-policy'], 'cross-origin');
      assert.equal(h['set-cookie'], undefined);
      assert.equal(h['access-control-allow-credentials'], undefined);
      assert.match(String(h['x-request-id']), /^req_/);
      const base = pathOf(url).replace(/index\.html$/, '');
      const js = await a.raw(`${base}js/app.js`);
      assert.equal(js.status, 200);
      assert.equal(js.text, JS);
      assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
      const data = await a.raw(`${base}data/a%20b.json?cache=bust`);
      assert.equal(data.status, 200);
      assert.equal(data.text, '{"x":1}');
      // The bare directory serves the entry.
      assert.equal((await a.raw(base)).text, HTML);
    });

    test('a cookie sent along is never read, and none is ever set', async () => {
      const res = await a.raw(pathOf(url), { headers: { cookie: `service_session=${a.r.g.people.member.token}` } });
      assert.equal(res.status, 200);
      assert.equal(res.headers['set-cookie'], undefined);
    });

    test('HEAD gives the headers and length without a body', async () => {
      const res = await a.raw(pathOf(url), { method: 'HEAD' });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-length'], String(Buffer.byteLength(HTML)));
      assert.equal(res.body.length, 0);
    });

    test('Host header variants: with and without port, upper case, trailing dot', async () => {
      for (const host of ['preview.localhost:8484', 'preview.localhost', 'PREVIEW.LOCALHOST:8484', 'Preview.Localhost', 'preview.localhost.:8484', 'preview.localhost.']) {
        const res = await a.raw(pathOf(url), { host });
        assert.equal(res.status, 200, host);
        assert.equal(res.text, HTML, host);
      }
    });

    test('the preview host answers nothing but /p/…: probes, the API, the gateway fast lane and pages are 404', async () => {
      const key = a.r.g.memberKey;
      const attempts: ({ path: string } & RawOptions)[] = [
        { path: '/api/health' },
        { path: '/api/health/live' },
        { path: '/api/health/ready' },
        { path: '/' },
        { path: '/sign-in' },
        { path: '/api/auth/session', headers: a.r.g.people.member.headers() },
        { path: '/api/app/agents', headers: a.r.g.people.member.headers() },
        { path: '/api/agents/x/runs', headers: { authorization: `Bearer ${a.token}` } },
        { path: '/api/v1/models', headers: { authorization: `Bearer ${key}` } },
        { path: '/api/v1/chat/completions', method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'hi' }] }) },
        { path: '/api/auth/login', method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' },
        { path: '/p' },
        { path: '/p/' },
        { path: `/p/${tokenOf(url)}` },
      ];
      const calls = a.r.g.openai.requests.length;
      for (const at of attempts) {
        const res = await a.raw(at.path, at);
        assert.equal(res.status, 404, `${at.method ?? 'GET'} ${at.path}`);
        assert.equal(res.text, NOT_FOUND, at.path);
        assert.equal(res.headers['content-security-policy'], 'sandbox allow-scripts allow-forms allow-popups allow-modals');
      }
      assert.equal(a.r.g.openai.requests.length, calls, 'no model call went out');
    });

    test('only GET and HEAD: other methods on a valid link are the same 404', async () => {
      for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']) {
        const res = await a.raw(pathOf(url), { method, headers: { 'content-type': 'text/plain' }, body: 'x' });
        assert.equal(res.status, 404, method);
        assert.equal(res.text, NOT_FOUND);
      }
    });

    test('forged, tampered, expired, other-version, other-workspace, old-secret and path-escape requests: one 404 body', async () => {
      const base = pathOf(url).replace(/index\.html$/, '');
      const t = tokenOf(url);
      const flipLast = t.slice(0, -1) + (t.at(-1) === 'A' ? 'B' : 'A');
      const paths = [
        `/p/${flipLast}/index.html`,
        `/p/${t.replace(appId, appId.slice(0, -1) + (appId.endsWith('a') ? 'b' : 'a'))}/index.html`,
        `/p/${t.replace('.1.', '.2.')}/index.html`,
        `/p/${sign({ version: 2 })}/index.html`,
        `/p/${sign({ workspaceId: a.r.g.people.outsider.ownWorkspace })}/index.html`,
        `/p/${sign({ appId: 'app_00000000000000000000' })}/index.html`,
        `/p/${sign({ exp: Math.floor(a.r.g.core.clock.now() / 1000) })}/index.html`,
        `/p/${sign({}, 'a different preview secret, as after a rotation')}/index.html`,
        `/p/not-a-token/index.html`,
        `${base}missing.html`,
        `${base}../index.html`,
        `${base}%2e%2e/index.html`,
        `${base}js%2fapp.js`,
        `${base}js/../index.html`,
        `${base}..%5cindex.html`,
        `${base}%00`,
        `${base}%zz`,
        `${base}./index.html`,
        `${base}js//app.js`,
      ];
      // Sanity: a freshly signed token for the real version works, so the 404s are for the change.
      assert.equal((await a.raw(`/p/${sign()}/index.html`)).status, 200);
      for (const p of paths) {
        const res = await a.raw(p);
        assert.equal(res.status, 404, p);
        assert.equal(res.text, NOT_FOUND, p);
      }
    });

    test('an expired link is a 404; the same link worked until the second before', async () => {
      const link = await a.link(appId);
      const clock = a.r.g.fx.clock;
      const t0 = clock.now();
      try {
        clock.set(Date.parse(link.body.expiresAt) - 1);
        assert.equal((await a.raw(pathOf(link.body.url))).status, 200);
        clock.set(Date.parse(link.body.expiresAt));
        const res = await a.raw(pathOf(link.body.url));
        assert.equal(res.status, 404);
        assert.equal(res.text, NOT_FOUND);
      } finally {
        clock.set(t0);
      }
    });

    test('the app origin never serves /p/…', async () => {
      for (const host of [new URL(a.r.g.base).host, 'localhost:8484', 'localhost']) {
        const res = await a.raw(pathOf(url), { host });
        assert.equal(res.status, 404, host);
        assert.notEqual(res.text, HTML);
        assert.equal(res.headers['content-security-policy'], undefined, 'answered by the app, not the preview');
      }
    });

    test('X-Forwarded-Host is ignored unless SERVICE_TRUST_PROXY is on', async () => {
      const fwd = { 'x-forwarded-host': 'preview.localhost:8484' };
      // Direct listener: the app answers (its probe works, /p/… is its 404).
      assert.equal((await a.raw('/api/health', { host: 'localhost:8484', headers: fwd })).status, 200);
      assert.notEqual((await a.raw(pathOf(url), { host: 'localhost:8484', headers: fwd })).text, HTML);
      // Behind a trusted proxy: the forwarded host decides, both ways.
      const port = proxied.port;
      const served = await a.raw(pathOf(url), { host: 'localhost:8484', headers: fwd, port });
      assert.equal(served.status, 200);
      assert.equal(served.text, HTML);
      assert.equal((await a.raw('/api/health', { host: 'localhost:8484', headers: fwd, port })).status, 404);
      assert.equal((await a.raw(pathOf(url), { host: 'preview.localhost:8484', headers: { 'x-forwarded-host': 'localhost:8484' }, port })).status, 404);
      assert.equal((await a.raw('/api/health', { host: 'preview.localhost:8484', headers: { 'x-forwarded-host': 'localhost:8484' }, port })).status, 200);
      // Without a forwarded header, the Host header still decides.
      assert.equal((await a.raw(pathOf(url), { host: 'preview.localhost', port })).status, 200);
    });

    test('the access log keeps 4 characters of the token, never the token', async () => {
      const t = tokenOf(url);
      await a.raw(pathOf(url));
      const lines = a.r.g.fx.logs.filter((l) => l.origin === 'preview');
      assert.ok(lines.length > 0);
      assert.ok(lines.some((l) => l.path === `/p/${t.slice(0, 4)}…/inde…` && l.route === '/p/:token/*' && l.status === 200));
      const all = JSON.stringify(a.r.g.fx.logs);
      assert.ok(!all.includes(t), 'the full token is in no log line');
      assert.ok(!all.includes(t.split('.')[4]!), 'nor its MAC');
    });
  });
}
