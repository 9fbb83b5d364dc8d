// The operator's way back in (issue 17 item 3): a one-time reset link — works once, within the hour,
// for the account it was issued for; using it signs that account out everywhere. Both stores.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { issuePasswordReset, RESET_TTL_MS } from '../../core/accounts/password-reset.ts';
import { createApp, type App } from '../../daemon/app.ts';
import { errorOf, jsonInit, signUp } from './accounts-helpers.ts';
import { testCore, type Fixture } from './http-fixture.ts';

const PASSWORD = 'correct horse battery';

for (const store of ['sqlite', 'postgres'] as const) {
  describe(`password reset links (${store})`, () => {
    let fx: Fixture;
    let app: App;
    beforeAll(async () => {
      fx = await testCore({ store, env: { SERVICE_REGISTRATION_MODE: 'open' } });
      app = createApp(fx.core, fx.services);
    });
    afterAll(() => fx.cleanup());

    const issue = (email: string) => issuePasswordReset({ db: fx.core.db, clock: fx.core.clock, tokenKey: fx.core.auth.tokenKey }, email, fx.core.config.SERVICE_APP_ORIGIN);
    const reset = (token: string, newPassword: string) => app.request('/api/auth/reset-password', jsonInit('POST', { token, newPassword }));
    const login = (email: string, password: string) => app.request('/api/auth/login', jsonInit('POST', { email, password }));
    const alive = async (headers: Record<string, string>) => (await app.request('/api/auth/session', { headers })).status === 200;

    test('a link sets the new password once and ends every session of the account', async () => {
      const { session } = await signUp(app, { email: 'lost@example.com', password: PASSWORD });
      const other = (await signUp(app, { email: 'bystander@example.com', password: PASSWORD })).session;
      const link = await issue('Lost@Example.com');
      assert.match(link.url, /\/reset-password\?token=svc_rst_/);
      assert.equal(new URL(link.url).searchParams.get('token'), link.token);
      const weak = await reset(link.token, 'short');
      assert.equal(weak.status, 400);
      assert.equal((await errorOf(weak)).field, 'newPassword');
      assert.equal((await reset(link.token, 'a brand new password')).status, 204, 'a refused weak password did not use up the link');
      assert.equal(await alive(session.headers({ csrf: false })), false, 'signed out everywhere');
      assert.equal(await alive(other.headers({ csrf: false })), true, 'other accounts untouched');
      assert.equal((await login('lost@example.com', PASSWORD)).status, 401);
      assert.equal((await login('lost@example.com', 'a brand new password')).status, 200);
      const again = await reset(link.token, 'yet another password');
      assert.equal(again.status, 403);
      assert.equal((await errorOf(again)).code, 'reset_link_invalid');
    });

    test('expired, replaced, forged and unknown links all get the same 403; an unknown address no link', async () => {
      await signUp(app, { email: 'late@example.com', password: PASSWORD });
      const old = await issue('late@example.com');
      const fresh = await issue('late@example.com');
      const bodies = [];
      for (const token of [old.token, fresh.token.slice(0, -1) + (fresh.token.endsWith('A') ? 'B' : 'A'), 'svc_rst_nope']) {
        const r = await reset(token, 'a brand new password');
        assert.equal(r.status, 403, token);
        const e = await errorOf(r);
        bodies.push(JSON.stringify([e.code, e.message, e.field]));
      }
      fx.clock.advance(RESET_TTL_MS + 1000);
      const expired = await reset(fresh.token, 'a brand new password');
      assert.equal(expired.status, 403);
      assert.equal(new Set(bodies).size, 1, 'one answer for every unusable link');
      await assert.rejects(issue('nobody@example.com'), /not found/i);
    });

    test('the page behind the link has the token and a labelled password field', async () => {
      const res = await app.request('/reset-password?token=svc_rst_x');
      assert.equal(res.status, 200);
      const page = await res.text();
      assert.match(page, /name="token" value="svc_rst_x"/);
      assert.match(page, /<label[^>]*for="[^"]*newPassword[^"]*"|<label[^>]*>[^<]*New password/);
    });
  });
}
