// The server-rendered sign-up, sign-in and home pages: escaping, security headers, valid scripts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Script } from 'node:vm';
import { createApp, type App } from '../../daemon/app.ts';
import { signUp } from './accounts-helpers.ts';
import { testCore, type Fixture } from './http-fixture.ts';

/** The nonce the CSP allows, and every inline <script>/<style> of the page with its nonce. */
function inspect(res: Response, html: string) {
  const csp = res.headers.get('content-security-policy') ?? '';
  const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
  const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => ({ attrs: m[1]!, body: m[2]! }));
  const styles = [...html.matchAll(/<style([^>]*)>/g)].map((m) => m[1]!);
  return { csp, nonce, scripts, styles };
}

function assertSecurityHeaders(res: Response): void {
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.equal(res.headers.get('x-frame-options'), 'DENY');
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
}

describe('pages', () => {
  let fx: Fixture;
  let app: App;
  before(async () => {
    fx = await testCore({ env: { SERVICE_REGISTRATION_MODE: 'open' } });
    app = createApp(fx.core);
  });
  after(() => fx.cleanup());

  test('GET /sign-up fills the Invitation code field from ?invite=', async () => {
    const res = await app.request('/sign-up?invite=svc_inv_abc123');
    assert.equal(res.status, 200);
    assertSecurityHeaders(res);
    const html = await res.text();
    assert.match(html, /Invitation code<input name="invitationToken" type="text" value="svc_inv_abc123"/);
    for (const name of ['email', 'name', 'password']) assert.match(html, new RegExp(`name="${name}"`));
    assert.match(html, /data-api="\/api\/auth\/register"/);
  });

  test('?invite= is HTML-escaped: a script or an attribute break stays text', async () => {
    const evil = `"><script>alert(1)</script><img src=x onerror='alert(2)'>&`;
    const res = await app.request(`/sign-up?invite=${encodeURIComponent(evil)}`);
    const html = await res.text();
    assert.ok(!html.includes('<script>alert'), 'no injected script element');
    assert.ok(!html.includes('<img'), 'no injected element');
    assert.ok(html.includes('value="&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;&#60;img src=x onerror=&#39;alert(2)&#39;&#62;&#38;"'));
    const { nonce, scripts } = inspect(res, html);
    assert.equal(scripts.length, 1, 'only our own script');
    assert.equal(scripts[0]!.attrs, ` nonce="${nonce}"`);
  });

  test('inline scripts and styles carry the CSP nonce, the nonce changes per response, and the scripts parse', async () => {
    const nonces = new Set<string>();
    for (const path of ['/sign-up', '/sign-in', '/sign-in']) {
      const res = await app.request(path);
      const html = await res.text();
      const { csp, nonce, scripts, styles } = inspect(res, html);
      assert.ok(nonce, csp);
      assert.match(csp, new RegExp(`style-src 'nonce-${nonce!.replace(/[+/]/g, '\\$&')}'`));
      nonces.add(nonce!);
      assert.equal(scripts.length, 1);
      for (const s of scripts) {
        assert.equal(s.attrs, ` nonce="${nonce}"`);
        assert.doesNotThrow(() => new Script(s.body), `${path}: the inline script is valid JavaScript`);
      }
      for (const attrs of styles) assert.equal(attrs, ` nonce="${nonce}"`);
    }
    assert.equal(nonces.size, 3);
  });

  test('GET /sign-in posts to the login API', async () => {
    const res = await app.request('/sign-in');
    assert.equal(res.status, 200);
    assertSecurityHeaders(res);
    const html = await res.text();
    assert.match(html, /data-api="\/api\/auth\/login"/);
    assert.match(html, /name="password" type="password"/);
  });

  test('GET / links to sign-in when signed out, and greets the user (escaped) when signed in', async () => {
    const out = await app.request('/');
    assert.equal(out.status, 200);
    assertSecurityHeaders(out);
    assert.match(await out.text(), /href="\/sign-in"/);

    const { session } = await signUp(app, { email: 'ana@example.com', name: '<b>Ana</b>' });
    const inn = await app.request('/', { headers: session.headers({ csrf: false }) });
    const html = await inn.text();
    assert.ok(html.includes('Signed in as &#60;b&#62;Ana&#60;/b&#62; &lt;ana@example.com&gt;'), html);
    assert.ok(!html.includes('<b>Ana'));
    assert.match(html, /&#60;b&#62;Ana&#60;\/b&#62;&#39;s workspace \(owner\)/);
    const { scripts } = inspect(inn, html);
    assert.equal(scripts.length, 1);
    assert.doesNotThrow(() => new Script(scripts[0]!.body));
  });
});
