// Sign-in, session read, logout, CSRF, throttling and cookie flags, through HTTP.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { SESSION_TTL_MS } from '../../core/accounts/sessions.ts';
import { createApp, type App } from '../../daemon/app.ts';
import { errorOf, jsonInit, productionEnv, sessionFrom, setCookies, signUp, type AccountBody } from './accounts-helpers.ts';
import { testCore, type Fixture } from './http-fixture.ts';

const PASSWORD = 'correct horse battery';
const login = (app: App, email: string, password: string, headers: Record<string, string> = {}) =>
  app.request('/api/auth/login', jsonInit('POST', { email, password }, headers));

describe('login and session', () => {
  let fx: Fixture;
  let app: App;
  let ana: AccountBody;
  beforeAll(async () => {
    fx = await testCore({ env: { SERVICE_REGISTRATION_MODE: 'open' } });
    app = createApp(fx.core, fx.services);
    ana = (await signUp(app, { email: 'ana@example.com', name: 'Ana', password: PASSWORD })).body;
  });
  afterAll(() => fx.cleanup());

  test('login answers {user, workspaces} and sets both cookies; the address is case-insensitive', async () => {
    const res = await login(app, ' ANA@Example.com', PASSWORD);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), ana);
    const s = sessionFrom(res, ana.user.id);
    const read = await app.request('/api/auth/session', { headers: s.headers({ csrf: false }) });
    assert.equal(read.status, 200);
    // The session also names the workspace it acts in: the user's own, until switched.
    assert.deepEqual(await read.json(), { ...ana, activeWorkspaceId: ana.workspaces[0]!.id });
  });

  test('wrong password and unknown address give the same 401, byte for byte, and no cookie', async () => {
    const wrong = await login(app, 'ana@example.com', 'not the password');
    const unknown = await login(app, 'nobody@example.com', PASSWORD);
    assert.equal(wrong.status, 401);
    assert.equal(unknown.status, 401);
    const [a, b] = [await wrong.text(), await unknown.text()];
    assert.equal(a, b);
    assert.equal(JSON.parse(a).error.code, 'invalid_credentials');
    assert.equal(wrong.headers.getSetCookie().length + unknown.headers.getSetCookie().length, 0);
    fx.core.auth.throttles.account.reset('ana@example.com');
  });

  test('GET /api/auth/session without a cookie, or with a forged one, is 401', async () => {
    assert.equal((await app.request('/api/auth/session')).status, 401);
    const forged = await app.request('/api/auth/session', { headers: { cookie: 'service_session=svc_ses_forged' } });
    assert.equal(forged.status, 401);
  });

  test('logout ends the session server-side and clears the cookies', async () => {
    const s = sessionFrom(await login(app, 'ana@example.com', PASSWORD), ana.user.id);
    const res = await app.request('/api/auth/logout', { method: 'POST', headers: s.headers() });
    assert.equal(res.status, 204);
    const cleared = setCookies(res);
    for (const name of ['service_session', 'service_csrf']) {
      assert.equal(cleared.get(name)?.value, '', `${name} cleared`);
      assert.ok(cleared.get(name)!.attrs.includes('max-age=0'), `${name} expires now`);
    }
    // The old cookie no longer works, even when a client keeps sending it.
    assert.equal((await app.request('/api/auth/session', { headers: s.headers() })).status, 401);
    assert.equal((await app.request('/api/auth/logout', { method: 'POST', headers: s.headers() })).status, 401);
  });

  test('CSRF: logout without the header, with a wrong one, or with another session\'s value is 403 csrf_failed', async () => {
    const s = sessionFrom(await login(app, 'ana@example.com', PASSWORD), ana.user.id);
    const other = sessionFrom(await login(app, 'ana@example.com', PASSWORD), ana.user.id);
    for (const csrf of [false, 'wrong', other.csrf, ''] as const) {
      const res = await app.request('/api/auth/logout', { method: 'POST', headers: s.headers({ csrf }) });
      assert.equal(res.status, 403, `csrf=${String(csrf)}`);
      assert.equal((await errorOf(res)).code, 'csrf_failed');
    }
    // Still signed in: the refused logouts changed nothing.
    assert.equal((await app.request('/api/auth/session', { headers: s.headers({ csrf: false }) })).status, 200);
  });

  test('a session expires after its lifetime', async () => {
    const s = sessionFrom(await login(app, 'ana@example.com', PASSWORD), ana.user.id);
    fx.clock.advance(SESSION_TTL_MS - 1000);
    assert.equal((await app.request('/api/auth/session', { headers: s.headers() })).status, 200);
    fx.clock.advance(2000);
    assert.equal((await app.request('/api/auth/session', { headers: s.headers() })).status, 401);
  });

  test('signing in again from a browser that holds a session ends the old one', async () => {
    const first = sessionFrom(await login(app, 'ana@example.com', PASSWORD), ana.user.id);
    const res = await login(app, 'ana@example.com', PASSWORD, { cookie: first.headers().cookie! });
    const second = sessionFrom(res, ana.user.id);
    assert.notEqual(second.token, first.token);
    assert.equal((await app.request('/api/auth/session', { headers: first.headers() })).status, 401);
    assert.equal((await app.request('/api/auth/session', { headers: second.headers() })).status, 200);
  });
});

describe('login throttling', () => {
  let fx: Fixture;
  let app: App;
  beforeAll(async () => {
    fx = await testCore({ env: { SERVICE_REGISTRATION_MODE: 'open' } });
    app = createApp(fx.core, fx.services);
    await signUp(app, { email: 'ana@example.com', password: PASSWORD });
  });
  afterAll(() => fx.cleanup());

  test('10 failures on one account → 429 with Retry-After, even for the right password; it lifts after the window', async () => {
    for (let i = 0; i < 10; i++) assert.equal((await login(app, 'ana@example.com', `wrong ${i}`)).status, 401);
    const res = await login(app, 'Ana@example.com', PASSWORD);
    assert.equal(res.status, 429);
    const retry = Number(res.headers.get('retry-after'));
    assert.ok(Number.isInteger(retry) && retry > 0 && retry <= 15 * 60, `Retry-After ${retry}`);
    assert.equal((await errorOf(res)).code, 'too_many_attempts');
    assert.equal(res.headers.getSetCookie().length, 0);
    fx.clock.advance(retry * 1000);
    assert.equal((await login(app, 'ana@example.com', PASSWORD)).status, 200);
  });

  test('30 failures from one address across many accounts → 429 for any account from that address', async () => {
    // Under app.request there is no socket: every request counts as the address "unknown".
    for (let i = 0; i < 30; i++) assert.equal((await login(app, `nobody${i}@example.com`, 'wrong password')).status, 401);
    const res = await login(app, 'ana@example.com', PASSWORD);
    assert.equal(res.status, 429);
    assert.ok(Number(res.headers.get('retry-after')) > 0);
    const metrics = await fx.core.metrics.registry.getSingleMetricAsString('svc_auth_failures_total');
    assert.match(metrics, /surface="login",reason="throttled"/);
    assert.match(metrics, /surface="login",reason="invalid_credentials"\} 4\d/);
  });
});

describe('cookie flags', () => {
  test('development: session cookie HttpOnly, both SameSite=Lax, no Secure; CSRF cookie readable by scripts', async () => {
    const fx = await testCore();
    try {
      const { res } = await signUp(createApp(fx.core, fx.services), { email: 'ana@example.com' });
      const jar = setCookies(res);
      const session = jar.get('service_session')!;
      const csrf = jar.get('service_csrf')!;
      assert.ok(session.attrs.includes('httponly'));
      assert.ok(!csrf.attrs.includes('httponly'), 'the page script reads the CSRF cookie');
      for (const c of [session, csrf]) {
        assert.ok(c.attrs.includes('samesite=lax'));
        assert.ok(c.attrs.includes('path=/'));
        assert.ok(!c.attrs.includes('secure'));
        assert.ok(c.attrs.some((a) => a === `max-age=${SESSION_TTL_MS / 1000}`), c.attrs.join(';'));
      }
    } finally {
      await fx.cleanup();
    }
  });

  test('production: both cookies are Secure, on sign-up, login and logout', async () => {
    const fx = await testCore({ env: productionEnv() });
    try {
      assert.equal(fx.core.config.production, true);
      const app = createApp(fx.core, fx.services);
      const up = await signUp(app, { email: 'ana@example.com' });
      const inn = await login(app, 'ana@example.com', PASSWORD);
      const out = await app.request('/api/auth/logout', { method: 'POST', headers: sessionFrom(inn, up.body.user.id).headers() });
      assert.equal(out.status, 204);
      for (const res of [up.res, inn, out]) {
        const jar = setCookies(res);
        assert.equal(jar.size, 2);
        for (const [name, c] of jar) assert.ok(c.attrs.includes('secure'), `${name} Secure`);
      }
      for (const res of [up.res, inn]) assert.ok(setCookies(res).get('service_session')!.attrs.includes('httponly'));
    } finally {
      await fx.cleanup();
    }
  });
});
