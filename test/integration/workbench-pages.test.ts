// The workbench's server side (in process): security headers and the CSP nonce on every page, HTML
// escaping, CSRF on every form POST, errors next to their field, safe redirects, and the workspace
// switch remembered on the session. The browser tests (test/e2e/workbench-*.test.ts) drive the same
// pages in Chromium.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { setActiveWorkspace } from '../../core/accounts/sessions.ts';
import { createApp, type App } from '../../daemon/app.ts';
import { accountsDeps } from '../../core/services.ts';
import { setCookies } from './accounts-helpers.ts';
import { testCore, type Fixture } from './http-fixture.ts';
import { cast, type Cast, type Person } from './people.ts';

const form = (fields: Record<string, string>, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams(fields).toString(),
});
const cookieOf = (p: Person) => ({ cookie: `service_session=${p.token}; service_csrf=${p.csrf}` });

function assertPageHeaders(res: Response, html: string): void {
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  const csp = res.headers.get('content-security-policy') ?? '';
  const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
  assert.ok(nonce, csp);
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(csp, /object-src 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:\/\/(?!preview)/);
  assert.equal(res.headers.get('x-frame-options'), 'DENY');
  assert.equal(res.headers.get('referrer-policy'), 'same-origin');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(res.headers.get('cache-control'), 'no-store');
  // Every script carries this response's nonce and comes from our own assets; no inline handlers or styles.
  const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
  assert.ok(scripts.length >= 1);
  for (const [, attrs, body] of scripts) {
    assert.ok(attrs!.includes(`nonce="${nonce}"`), attrs);
    assert.match(attrs!, /src="\/assets\/app\.[0-9a-f]{12}\.js"/);
    assert.equal(body, '');
  }
  assert.doesNotMatch(html, /<style|\sstyle="|\son[a-z]+="/i);
  // Every visible form control has a label.
  for (const [, id] of html.matchAll(/<(?:input|select|textarea)(?![^>]*type="hidden")[^>]*\sid="([^"]+)"/g)) {
    assert.ok(html.includes(`<label for="${id}"`), `a label for #${id}`);
  }
  assert.doesNotMatch(html, /<(?:input|select|textarea)(?![^>]*type="hidden")(?![^>]*\sid=)[^>]*>/, 'every control has an id for its label');
}

describe('workbench pages (in process)', () => {
  let fx: Fixture;
  let app: App;
  let people: Cast;

  beforeAll(async () => {
    fx = await testCore({ env: { SERVICE_REGISTRATION_MODE: 'open', SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
    app = createApp(fx.core, fx.services);
    people = await cast(fx.core);
  });
  afterAll(() => fx.cleanup());

  test('sign-up fills the invitation code from ?invite=, escaped', async () => {
    const evil = `svc_inv_x"><script>alert(1)</script>&`;
    const res = await app.request(`/sign-up?invite=${encodeURIComponent(evil)}`);
    assert.equal(res.status, 200);
    const html = await res.text();
    assertPageHeaders(res, html);
    assert.ok(html.includes('value="svc_inv_x&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;"'), html);
    assert.ok(!html.includes('<script>alert'));
  });

  test('every page without an id in its path answers signed in, with the security headers and labels', async () => {
    const paths = [...new Set(app.routes.filter((r) => r.method === 'GET' && !r.path.startsWith('/api') && !r.path.includes(':') && !r.path.includes('*')).map((r) => r.path))];
    assert.ok(paths.length >= 3, paths.join(' '));
    for (const p of paths) {
      const res = await app.request(p, { headers: cookieOf(people.owner) });
      const html = await res.text();
      assert.equal(res.status, 200, `${p}: ${html.slice(0, 500)}`);
      assertPageHeaders(res, html);
    }
  });

  test('a viewer gets read-only pages: no form but their own (access tokens, password, sign-out, switch); invitations are 403', async () => {
    const viewer = people.viewer;
    await setActiveWorkspace(accountsDeps(fx.core), viewer.token, people.workspace);
    const paths = [...new Set(app.routes.filter((r) => r.method === 'GET' && !r.path.startsWith('/api') && !r.path.includes(':') && !r.path.includes('*')).map((r) => r.path))];
    const own = new Set(['/sign-out', '/workspace', '/tokens/access', '/account/password', '/account/sign-out-everywhere', '/sign-in', '/sign-up', '/reset-password']);
    for (const p of paths) {
      const res = await app.request(p, { headers: cookieOf(viewer) });
      const html = await res.text();
      if (p === '/invitations' || p === '/agents/new') {
        assert.equal(res.status, 403);
        continue;
      }
      assert.equal(res.status, 200, p);
      const actions = [...html.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]!).filter((a) => !own.has(a) && a !== `/members/${viewer.userId}/remove`); // leaving needs no rank
      assert.deepEqual(actions, [], `${p}: forms a viewer may not use`);
      assert.doesNotMatch(html, /href="\/(agents\/new|invitations)"/, p);
    }
    await setActiveWorkspace(accountsDeps(fx.core), viewer.token, viewer.ownWorkspace);
  });

  test('a provider account whose server does not answer stays listed, marked unreachable', async () => {
    const { refusingUrl } = await import('../helpers/fake-upstream.ts');
    const owner = people.owner;
    await setActiveWorkspace(accountsDeps(fx.core), owner.token, people.workspace);
    const r = await app.request('/api/app/provider-accounts', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...cookieOf(owner), 'x-csrf-token': owner.csrf },
      body: JSON.stringify({ provider: 'openai-compatible', name: 'Basement GPU', baseUrl: await refusingUrl() }),
    });
    assert.equal(r.status, 201, await r.clone().text());
    const page = await (await app.request('/provider-accounts', { headers: cookieOf(owner) })).text();
    assert.match(page, /Basement GPU<\/a><\/td>.*?<code>basement-gpu<\/code>.*?<span class="badge bad">unreachable<\/span>/s);
  });

  test('a signed-out visit is sent to sign in and back; `next` never leaves the site', async () => {
    const res = await app.request('/');
    assert.equal(res.status, 200, 'the start page is public');
    const runs = await app.request('/runs?x=1');
    assert.equal(runs.status, 302);
    assert.equal(runs.headers.get('location'), `/sign-in?next=${encodeURIComponent('/runs?x=1')}`);
    const page = await app.request('/sign-in');
    const cookie = [...setCookies(page)].map(([k, v]) => `${k}=${v.value}`).join('; ');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      const r = await app.request('/sign-in', form({ _csrf: csrf, email: 'owner@example.test', password: 'correct horse battery', next }, { cookie }));
      assert.equal(r.status, 303, next);
      assert.equal(r.headers.get('location'), '/', next);
    }
  });

  test('CSRF: every form POST is refused (403) without the hidden value, with a wrong one, and cross-session', async () => {
    const posts = [...new Set(app.routes.filter((r) => r.method === 'POST' && !r.path.startsWith('/api')).map((r) => r.path))];
    assert.ok(posts.length >= 4, posts.join(' '));
    for (const route of posts) {
      const path = route.replace(/:[A-Za-z]+/g, 'x_0000');
      for (const [label, fields] of [
        ['missing', {}],
        ['wrong', { _csrf: 'A'.repeat(43) }],
        ['another session', { _csrf: people.admin.csrf }],
      ] as const) {
        const res = await app.request(path, form({ ...fields, workspaceId: people.workspace, email: 'owner@example.test', password: 'correct horse battery' }, cookieOf(people.owner)));
        assert.equal(res.status, 403, `${route} (${label}): ${res.status}`);
        assert.match(await res.text(), /form expired or was sent from another site/);
      }
    }
    // Before sign-in the value is tied to a cookie of this browser: another browser's value fails.
    const a = await app.request('/sign-in');
    const csrfA = /name="_csrf" value="([^"]+)"/.exec(await a.text())![1]!;
    const b = await app.request('/sign-in');
    const cookieB = [...setCookies(b)].map(([k, v]) => `${k}=${v.value}`).join('; ');
    const r = await app.request('/sign-in', form({ _csrf: csrfA, email: 'owner@example.test', password: 'correct horse battery' }, { cookie: cookieB }));
    assert.equal(r.status, 403);
  });

  test('a form body that is not urlencoded is a 415 page', async () => {
    const res = await app.request('/sign-out', { method: 'POST', headers: { ...cookieOf(people.owner), 'content-type': 'application/json' }, body: JSON.stringify({ _csrf: people.owner.csrf }) });
    assert.equal(res.status, 415);
  });

  test('an error names its field: shown next to the input, which is marked invalid; values are kept, passwords not', async () => {
    const page = await app.request('/sign-up');
    const cookie = [...setCookies(page)].map(([k, v]) => `${k}=${v.value}`).join('; ');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const res = await app.request('/sign-up', form({ _csrf: csrf, email: 'not-an-address', name: 'Zed', password: 'correct horse battery' }, { cookie }));
    assert.equal(res.status, 400);
    const html = await res.text();
    assert.match(html, /<input id="signup-email" name="email" type="email" value="not-an-address"[^>]*aria-describedby="signup-email-error" aria-invalid="true">/);
    assert.match(html, /<p class="field-error" id="signup-email-error">Enter a valid email address.<\/p>/);
    assert.match(html, /name="name" type="text" value="Zed"/);
    assert.match(html, /name="password" type="password" value=""/);
  });

  test('the workspace switch is remembered on the session: the API then acts there too', async () => {
    const admin = people.admin;
    const before = await app.request('/api/auth/session', { headers: cookieOf(admin) });
    assert.equal(((await before.json()) as { activeWorkspaceId: string }).activeWorkspaceId, admin.ownWorkspace);
    const res = await app.request('/workspace', form({ _csrf: admin.csrf, workspaceId: people.workspace, back: '/members' }, cookieOf(admin)));
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/members');
    const members = await app.request('/api/app/members', { headers: cookieOf(admin) });
    const ids = ((await members.json()) as { data: { userId: string }[] }).data.map((m) => m.userId);
    assert.ok(ids.includes(people.owner.userId), 'members of the operator workspace');
    // A workspace the user is not in is refused, and the remembered one stays.
    const outsider = await app.request('/workspace', form({ _csrf: admin.csrf, workspaceId: people.outsider.ownWorkspace }, cookieOf(admin)));
    assert.equal(outsider.status, 403);
    const after = await app.request('/api/auth/session', { headers: cookieOf(admin) });
    assert.equal(((await after.json()) as { activeWorkspaceId: string }).activeWorkspaceId, people.workspace);
    await setActiveWorkspace(accountsDeps(fx.core), admin.token, admin.ownWorkspace);
  });

  test('assets are served with a content hash, immutable caching and nosniff; unknown ones are 404', async () => {
    const html = await (await app.request('/sign-in')).text();
    for (const path of [/href="(\/assets\/[^"]+\.css)"/.exec(html)![1]!, /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!]) {
      const res = await app.request(path);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('cache-control') ?? '', /immutable/);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.ok((await res.text()).length > 100);
    }
    assert.equal((await app.request('/assets/app.000000000000.js')).status, 404);
  });
});
