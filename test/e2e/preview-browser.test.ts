// Generated apps in a real browser (headless Chromium) against the built binary: an agent run whose
// model calls create_app makes an app; its preview link opens on the preview origin
// (http://preview.localhost:<port>; Chromium resolves *.localhost to loopback) while the user is
// signed in on the app origin (http://localhost:<port>). The app's scripts run (classic and module,
// and it reads its own files), but it has an opaque origin: no document.cookie, no localStorage,
// and no call to /api/app/* with the user's session. An expired link, a link with one changed
// character and /p/… on the app origin are 404. Screenshots go to test-output/preview/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { previewKey, signPreviewToken } from '../../core/apps/token.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { cleanEnv, ensureBuilt, freePort, isolatedBinary, repoRoot, start, stop, waitForStatus, type Running, type Sandbox } from '../helpers/binary.ts';
import { fakeOpenAi } from '../helpers/fake-upstream.ts';

const SECRET = 'preview secret of the browser test, long enough to be real';
const OUT = join(repoRoot, 'test-output', 'preview');
const NOT_FOUND = '{"error":{"code":"not_found","message":"Not found."}}';
const EMAIL = 'owner@example.com';
const PASSWORD = 'correct horse battery';

/** The app the fake model asks create_app to store: it probes what its sandbox allows. */
function appFiles(appOrigin: string) {
  const probe = `
const results = {};
const attempt = async (name, fn) => { try { results[name] = await fn(); } catch (e) { results[name] = 'blocked: ' + e.name; } };
(async () => {
  results.origin = self.origin;
  await attempt('cookie', () => 'readable: ' + JSON.stringify(document.cookie));
  await attempt('localStorage', () => { localStorage.setItem('k', 'v'); return 'available'; });
  await attempt('sessionStorage', () => { sessionStorage.setItem('k', 'v'); return 'available'; });
  await attempt('ownData', async () => (await (await fetch('data/info.json')).json()).answer);
  for (const path of ['/api/auth/session', '/api/app/agents', '/api/app/shares']) {
    await attempt('get ' + path, async () => { const r = await fetch(${JSON.stringify(appOrigin)} + path, { credentials: 'include' }); return 'answered ' + r.status + ' ' + (await r.text()).slice(0, 200); });
  }
  // A no-cors POST cannot be read back, but it is sent: the server must not act on it.
  await attempt('post /api/app/shares', async () => { const r = await fetch(${JSON.stringify(appOrigin)} + '/api/app/shares', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{"kind":"run","id":"x"}' }); return 'sent (' + r.type + ')'; });
  await new Promise((r) => setTimeout(r, 50));
  results.module = globalThis.moduleRan === true;
  document.getElementById('out').textContent = JSON.stringify(results, null, 2);
  document.getElementById('status').textContent = 'done';
})();`;
  return [
    {
      path: 'index.html',
      content: `<!doctype html><html><head><meta charset="utf-8"><title>Sandbox probe</title><link rel="stylesheet" href="style.css"></head>
<body><h1>Generated app</h1><p id="status">running</p><pre id="out"></pre>
<script type="module" src="js/mod.js"></script><script src="js/probe.js"></script></body></html>`,
    },
    { path: 'style.css', content: 'body { font: 16px sans-serif; background: #f4f7ff; } h1 { color: #2a4a9a; } pre { background: #fff; padding: 8px; }' },
    { path: 'js/probe.js', content: probe },
    { path: 'js/mod.js', content: 'globalThis.moduleRan = true;' },
    { path: 'data/info.json', content: '{"answer": 42}' },
  ];
}

describe('generated apps in a browser (built binary, SQLite)', () => {
  let sb: Sandbox;
  let svc: Running;
  let fake: Awaited<ReturnType<typeof fakeOpenAi>>;
  let browser: Browser;
  let context: BrowserContext;
  let api: string;
  let appOrigin: string;
  let session: Record<string, string>;
  let link: { url: string; expiresAt: string };
  let appId: string;
  let runId: string;

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = session) => {
    const r = await fetch(`${api}${path}`, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : undefined, text };
  };
  const shot = (page: Page, name: string) => page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    ensureBuilt();
    mkdirSync(OUT, { recursive: true });
    sb = isolatedBinary();
    fake = await fakeOpenAi();
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    appOrigin = `http://localhost:${port}`;
    svc = start(sb, ['serve'], cleanEnv(sb.home, { PORT: String(port), SERVICE_APP_ORIGIN: appOrigin, SERVICE_PREVIEW_ORIGIN: `http://preview.localhost:${port}`, SERVICE_PREVIEW_SECRET: SECRET, SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' }));
    await waitForStatus(svc, `${api}/api/health/ready`);
    const reg = await fetch(`${api}/api/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: EMAIL, password: PASSWORD }) });
    assert.equal(reg.status, 201);
    const jar = Object.fromEntries(reg.headers.getSetCookie().map((c) => c.split(';', 1)[0]!.split('=') as [string, string]));
    session = { cookie: `service_session=${jar.service_session}; service_csrf=${jar.service_csrf}`, 'x-csrf-token': jar.service_csrf! };

    // An agent with create_app, run once: the fake model asks for the app, then answers.
    const pa = await call('POST', '/api/app/provider-accounts', { provider: 'openai-compatible', name: 'Fake', slug: 'fake', baseUrl: fake.url, models: ['gpt-test'] });
    assert.equal(pa.status, 201, pa.text);
    const agent = await call('POST', '/api/app/agents', { name: 'Builder', instructions: 'Build apps.', providerAccountId: pa.body.id, model: 'fake/gpt-test', tools: [{ type: 'create_app' }] });
    assert.equal(agent.status, 201, agent.text);
    assert.equal((await call('POST', `/api/app/agents/${agent.body.id}/publish`, {})).status, 201);
    const token = (await call('POST', '/api/app/access-tokens', { name: 'e2e' })).body.token as string;
    fake.once({ toolCalls: [{ id: 'call_1', name: 'create_app', arguments: JSON.stringify({ title: 'Sandbox probe', files: appFiles(appOrigin) }) }] });
    fake.once({ text: 'Your app is ready.' });
    const bearer = { authorization: `Bearer ${token}` };
    const run = await call('POST', `/api/agents/${agent.body.id}/runs`, { inputText: 'build me an app' }, bearer);
    assert.equal(run.body.status, 'completed', run.text);
    runId = run.body.runId;
    const read = await call('GET', `/api/agents/${agent.body.id}/runs/${run.body.runId}`, undefined, bearer);
    appId = read.body.apps[0].appId;
    const l = await call('POST', `/api/app/apps/${appId}/preview-links`);
    assert.equal(l.status, 201, l.text);
    link = l.body;
    assert.ok(link.url.startsWith(`http://preview.localhost:${port}/p/`), link.url);

    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 900, height: 700 } });
    // The user is signed in on the app origin in this browser: the session cookie is there to steal.
    const login = await context.request.post(`${appOrigin}/api/auth/login`, { data: { email: EMAIL, password: PASSWORD } });
    assert.equal(login.status(), 200);
    assert.ok((await context.cookies(appOrigin)).some((c) => c.name === 'service_session'));
  });

  afterAll(async () => {
    await browser?.close();
    if (svc) assert.equal(await stop(svc), 0, svc.output().slice(-2000));
    await fake?.close();
    sb?.cleanup();
  });

  test('the app opens through its link, its scripts run, and its sandbox holds', async () => {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => errors.push(`${m.type()}: ${m.text()}`));
    const previewRequests: Record<string, string>[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).hostname === 'preview.localhost') void r.allHeaders().then((h) => previewRequests.push(h));
    });
    const res = await page.goto(link.url);
    assert.equal(res?.status(), 200);
    assert.equal(res?.headers()['content-security-policy'], 'sandbox allow-scripts allow-forms allow-popups allow-modals');
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'done', undefined, { timeout: 15_000 });
    await shot(page, 'app');
    const results = JSON.parse((await page.textContent('#out'))!) as Record<string, unknown>;

    // Its scripts ran — a classic one, a module — and it reads its own files.
    assert.equal(results.module, true, JSON.stringify(results));
    assert.equal(results.ownData, 42);
    // An opaque origin: no cookies, no storage.
    assert.equal(results.origin, 'null');
    assert.match(String(results.cookie), /^blocked: SecurityError/);
    assert.match(String(results.localStorage), /^blocked: SecurityError/);
    assert.match(String(results.sessionStorage), /^blocked: SecurityError/);
    // The app origin's API refuses it: the browser does not hand the answer over (no CORS)…
    for (const path of ['/api/auth/session', '/api/app/agents', '/api/app/shares']) assert.equal(results[`get ${path}`], 'blocked: TypeError', path);
    // …and the requests reached svc without the session cookie (cross-site: SameSite=Lax stays home).
    const lines = svc.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const apiHits = lines.filter((l) => typeof l.path === 'string' && ['/api/app/agents', '/api/app/shares', '/api/auth/session'].includes(l.path) && l.method !== 'OPTIONS');
    const fromPreview = apiHits.filter((l) => l.status !== 200 && l.status !== 201);
    assert.ok(fromPreview.length >= 3, JSON.stringify(apiHits));
    // 401: no session cookie came along; 403: the state-changing one is refused on its Origin first.
    assert.ok(fromPreview.every((l) => l.status === 401 || (l.status === 403 && l.method === 'POST')), JSON.stringify(fromPreview));
    assert.equal((await call('GET', '/api/app/shares')).body.data.length, 0, 'the no-cors POST created nothing');
    // No request to the preview origin carried a cookie.
    assert.ok(previewRequests.length >= 5, `${previewRequests.length} preview requests`);
    assert.ok(previewRequests.every((h) => h.cookie === undefined), JSON.stringify(previewRequests.map((h) => h.cookie)));
    await page.close();
  });

  test('the workbench run page frames the app from the preview origin; its scripts run there', async () => {
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    const res = await page.goto(`${appOrigin}/runs/${runId}`);
    assert.equal(res?.status(), 200);
    const frameEl = page.locator('section.app-preview iframe');
    assert.match((await frameEl.getAttribute('src')) ?? '', /^http:\/\/preview\.localhost:\d+\/p\//);
    const frame = await (await frameEl.elementHandle())!.contentFrame();
    assert.ok(frame, 'the frame loaded');
    // Timer polling: Chromium throttles requestAnimationFrame in an offscreen frame.
    await frame.waitForFunction(() => document.getElementById('status')?.textContent === 'done', undefined, { timeout: 15_000, polling: 100 });
    assert.equal(await frame.evaluate(() => origin), 'null', 'the framed app runs in an opaque origin');
    await shot(page, 'run-page-with-app');
    assert.deepEqual(problems.filter((p) => /Content Security Policy|Refused/.test(p)), [], 'no CSP violation on the run page');
    await page.close();
  });

  test('an expired link and a link with one changed character are 404', async () => {
    const page = await context.newPage();
    const token = new URL(link.url).pathname.split('/')[2]!;
    const [, , workspaceId] = token.split('.');
    const expired = signPreviewToken(previewKey(SECRET), { appId, version: 1, workspaceId: workspaceId!, exp: Math.floor(Date.now() / 1000) - 1 });
    const fresh = signPreviewToken(previewKey(SECRET), { appId, version: 1, workspaceId: workspaceId!, exp: Math.floor(Date.now() / 1000) + 600 });
    const origin = new URL(link.url).origin;
    // The test's own signing is right: the same claims with a future expiry open the app.
    assert.equal((await page.goto(`${origin}/p/${fresh}/index.html`))?.status(), 200);

    const at = Math.floor(token.length / 2);
    const changed = token.slice(0, at) + (token[at] === 'a' ? 'b' : 'a') + token.slice(at + 1);
    const changedApp = token.replace(appId, appId.slice(0, -1) + (appId.endsWith('x') ? 'y' : 'x'));
    const cases: [string, string][] = [
      ['expired', `${origin}/p/${expired}/index.html`],
      ['changed-character', `${origin}/p/${changed}/index.html`],
      ['changed-app-id', `${origin}/p/${changedApp}/index.html`],
      ['app-origin', `${appOrigin}/p/${token}/index.html`],
    ];
    for (const [name, url] of cases) {
      const res = await page.goto(url);
      assert.equal(res?.status(), 404, name);
      if (name !== 'app-origin') assert.equal(await res?.text(), NOT_FOUND, name);
      await shot(page, `404-${name}`);
    }
    await page.close();
  });
});
