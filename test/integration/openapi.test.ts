// The published API reference (issue 17 item 1): every /api route the app mounts is in the OpenAPI
// document and every documented operation is mounted, so a route added without documentation
// fails here; the document and its HTML page are public, stable and complete.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { createApp, type App } from '../../daemon/app.ts';
import { mountedPath } from '../../daemon/openapi/document.ts';
import { OPERATIONS } from '../../daemon/openapi/operations.ts';
import { testCore, type Fixture } from './http-fixture.ts';

type Doc = { openapi: string; paths: Record<string, Record<string, { operationId: string; summary: string }>> };

/** Hono's mounted API routes as `METHOD /template`: browser pages and middleware (ALL) left out. */
const mountedApi = (app: App) => new Set(app.routes.filter((r) => r.method !== 'ALL' && r.path.startsWith('/api/')).map((r) => `${r.method} ${r.path}`));

/** The served document's operations as the route templates Hono mounts. */
function documented(doc: Doc): Set<string> {
  const out = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item)) {
      const op = OPERATIONS.find((o) => o.path === path && o.method === method.toUpperCase());
      assert.ok(op, `${method} ${path} is served but not in the registry`);
      out.add(`${op.method} ${mountedPath(op)}`);
    }
  }
  return out;
}

const difference = (a: Set<string>, b: Set<string>) => [...a].filter((x) => !b.has(x)).sort();

describe('OpenAPI document and reference page', () => {
  let fx: Fixture;
  let app: App;
  let doc: Doc;
  beforeAll(async () => {
    fx = await testCore();
    app = createApp(fx.core, fx.services);
    doc = (await (await app.request('/api/openapi.json')).json()) as Doc;
  });
  afterAll(() => fx.cleanup());

  test('every mounted /api route is documented, and every documented operation is mounted', () => {
    const mounted = mountedApi(app);
    const docs = documented(doc);
    assert.deepEqual(difference(mounted, docs), [], 'routes without documentation: add them to daemon/openapi/ops-*.ts');
    assert.deepEqual(difference(docs, mounted), [], 'documented operations that are not mounted');
    assert.ok(mounted.size > 80, `${mounted.size} routes`);
    for (const prefix of ['/api/app/', '/api/agents/', '/api/auth/', '/api/public/', '/api/v1/', '/api/health', '/api/activation', '/api/admin/metrics', '/api/openapi.json', '/api/docs']) {
      assert.ok([...docs].some((k) => k.split(' ')[1]!.startsWith(prefix)), `nothing documented under ${prefix}`);
    }
  });

  test('a route added without documentation is caught', () => {
    const extended = createApp(fx.core, fx.services, { routes: (a) => a.post('/api/app/undocumented', (c) => c.json({})) });
    assert.deepEqual(difference(mountedApi(extended), documented(doc)), ['POST /api/app/undocumented']);
  });

  test('GET /api/openapi.json: public JSON, OpenAPI 3.1.0, the same bytes every time', async () => {
    const a = await app.request('/api/openapi.json');
    const b = await app.request('/api/openapi.json');
    assert.equal(a.status, 200);
    assert.match(a.headers.get('content-type') ?? '', /^application\/json/);
    const [ta, tb] = [await a.text(), await b.text()];
    assert.equal(ta, tb);
    assert.equal((JSON.parse(ta) as Doc).openapi, '3.1.0');
    // Another app (a restart) serves the same bytes too.
    assert.equal(await (await createApp(fx.core, fx.services).request('/api/openapi.json')).text(), ta);
  });

  test('GET /api/docs: HTML listing every operation, no script, a strict CSP whose nonce is the style\'s', async () => {
    const res = await app.request('/api/docs');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const page = await res.text();
    const ops = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([m, op]) => ({ m, path, op })));
    assert.equal(ops.length, OPERATIONS.length);
    for (const { m, path, op } of ops) {
      assert.ok(page.includes(`id="${op.operationId}"`), `${m} ${path} is not on the page`);
      assert.ok(page.includes(`<code>${path}</code>`), `${path} is not shown`);
    }
    assert.doesNotMatch(page, /<script/i);
    assert.doesNotMatch(page, /\s(?:src|srcset)=|<link\b|url\(|@import/i, 'nothing loaded: the page is self-contained');
    const csp = res.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    assert.ok(nonce && csp.includes("default-src 'none'"), csp);
    assert.ok(page.includes(`<style nonce="${nonce}">`));
    assert.notEqual((await app.request('/api/docs')).headers.get('content-security-policy'), csp, 'a fresh nonce per response');
  });

  test('the host guard applies: another site\'s host name gets 421', async () => {
    for (const path of ['/api/openapi.json', '/api/docs']) {
      const res = await app.request(`http://rebind.example${path}`);
      assert.equal(res.status, 421, path);
    }
  });
});
