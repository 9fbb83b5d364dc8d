// SERVICE_TRUST_PROXY: the per-address login throttle keys on the proxy-appended X-Forwarded-For
// entry only when told to; otherwise the header is ignored (a client could rotate it).
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createApp, type App } from '../../daemon/app.ts';
import { jsonInit, signUp } from './accounts-helpers.ts';
import { testCore, type Fixture } from './http-fixture.ts';

const PASSWORD = 'correct horse battery';
const login = (app: App, email: string, password: string, xff: string) =>
  app.request('/api/auth/login', jsonInit('POST', { email, password }, { 'x-forwarded-for': xff }));

for (const trust of [true, false]) {
  describe(`SERVICE_TRUST_PROXY=${trust}`, () => {
    let fx: Fixture;
    let app: App;
    beforeAll(async () => {
      fx = await testCore({ env: { SERVICE_REGISTRATION_MODE: 'open', SERVICE_TRUST_PROXY: String(trust) } });
      app = createApp(fx.core, fx.services);
      await signUp(app, { email: 'ana@example.com', password: PASSWORD });
    });
    afterAll(() => fx.cleanup());

    test(trust ? 'failures from one client do not throttle another client behind the same proxy' : 'X-Forwarded-For is ignored: a client cannot rotate its way past the limit', async () => {
      for (let i = 0; i < 30; i++) {
        // The client-supplied part comes first; the proxy appends the real peer last.
        const xff = trust ? `9.9.9.${i}, 10.0.0.1` : `9.9.9.${i}`;
        assert.equal((await login(app, `nobody${i}@example.com`, 'wrong password', xff)).status, 401);
      }
      const res = await login(app, 'ana@example.com', PASSWORD, trust ? '9.9.9.9, 10.0.0.2' : '10.0.0.2');
      assert.equal(res.status, trust ? 200 : 429);
    });
  });
}
