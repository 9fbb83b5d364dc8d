// Issue 12, item 1 (HIGH): SSRF through a provider account's baseUrl. Any admin of any workspace
// (in open mode: anyone, in their own workspace) can set a baseUrl; without the guard the gateway
// called loopback, the LAN or the metadata endpoint and echoed 500 bytes of the answer. Here, on
// both stores and with no SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: creation and patch refuse with a
// 400 naming baseUrl, an account stored before the fix is refused at connection time and its
// target never hears of it, nothing of an upstream's body reaches the caller or the log, and the
// operator's LOCAL_LLM_BASE_URL on loopback keeps working.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { createApp } from '../../../daemon/app.ts';
import { DIALECTS } from '../../helpers/stores.ts';
import { fakeOpenAi, type FakeUpstream } from '../../helpers/fake-upstream.ts';
import { testCore, type Fixture } from '../http-fixture.ts';
import { cast, json, type Cast } from '../people.ts';

const SECRET = 'INTERNAL-ONLY-b41d';

interface ErrorBody {
  error: { code: string; message: string; field?: string; param?: string | null };
}

for (const store of DIALECTS) {
  describe(`provider base URLs reach public addresses only [${store}]`, () => {
    let fx: Fixture;
    let people: Cast;
    let app: ReturnType<typeof createApp>;
    let local: FakeUpstream;
    let internal: Server;
    let port = 0;
    let hits = 0;
    let memberKey = '';

    beforeAll(async () => {
      internal = createServer((_req, res) => {
        hits++;
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`${SECRET} {"AccessKeyId":"ASIA-SECRET"}`);
      });
      await new Promise<void>((r) => internal.listen(0, '127.0.0.1', r));
      port = (internal.address() as AddressInfo).port;
      local = await fakeOpenAi();
      local.script({ models: ['llama3.2'] });
      fx = await testCore({ store, env: { LOCAL_LLM_BASE_URL: local.url } });
      people = await cast(fx.core);
      app = createApp(fx.core, fx.services);
      const k = await app.request('/api/app/keys', json('POST', { name: 'ssrf' }, people.member.headers({ workspace: people.workspace })));
      memberKey = ((await k.json()) as { token: string }).token;
    });
    afterAll(async () => {
      await fx.cleanup();
      await local.close();
      await new Promise<void>((r) => internal.close(() => r()));
    });

    const asAdmin = (path: string, init: RequestInit) =>
      app.request(path, { ...init, headers: { ...(init.headers as Record<string, string>), ...people.admin.headers({ workspace: people.workspace }) } });
    const chat = (model: string) =>
      app.request('/api/v1/chat/completions', json('POST', { model, messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${memberKey}` }));
    const logText = () => JSON.stringify(fx.logs);

    test('create: a non-public baseUrl is a 400 base_url_not_public naming baseUrl, and nothing is stored', async () => {
      const cases = [
        `http://127.0.0.1:${port}/v1`,
        `http://localhost:${port}/v1`, // through DNS (/etc/hosts)
        `http://[::1]:${port}/v1`,
        `http://[::ffff:127.0.0.1]:${port}/v1`,
        `http://2130706433:${port}/v1`,
        `http://0.0.0.0:${port}/v1`,
        'http://169.254.169.254/latest/meta-data/',
        'http://10.0.0.8/v1',
        'http://192.168.1.1/v1',
        'http://100.64.0.1/v1',
        'http://[fd00::1]/v1',
        'http://[3fff::1]/v1',
        'http://[2001:2::1]/v1',
        local.url, // the operator's local target is for pa_local, not for a workspace's own account
      ];
      let n = 0;
      for (const baseUrl of cases) {
        const r = await asAdmin('/api/app/provider-accounts', json('POST', { provider: 'openai-compatible', name: 'x', slug: `s${n++}`, baseUrl, models: ['m'] }));
        const body = (await r.json()) as ErrorBody;
        assert.equal(r.status, 400, `${baseUrl}: ${JSON.stringify(body)}`);
        assert.equal(body.error.code, 'base_url_not_public', baseUrl);
        assert.equal(body.error.field, 'baseUrl', baseUrl);
        assert.match(body.error.message, /SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS/);
      }
      const rows = await fx.core.db.all<{ base_url: string }>("SELECT base_url FROM provider_accounts WHERE provider = 'openai-compatible'");
      assert.deepEqual(rows, []);
      assert.equal(hits, 0);
    });

    test('patch: moving an account onto a non-public address is refused and changes nothing', async () => {
      // A name that does not resolve here is accepted (DNS may work later; the connect-time guard still applies).
      const r = await asAdmin('/api/app/provider-accounts', json('POST', { provider: 'openai-compatible', name: 'ok', slug: 'pub', baseUrl: 'https://models.example.invalid/v1', models: ['m'] }));
      assert.equal(r.status, 201, await r.clone().text());
      const { id } = (await r.json()) as { id: string };
      for (const baseUrl of [`http://127.0.0.1:${port}/v1`, 'http://[::ffff:a9fe:a9fe]/latest']) {
        const p = await asAdmin(`/api/app/provider-accounts/${id}`, json('PATCH', { baseUrl }));
        const body = (await p.json()) as ErrorBody;
        assert.equal(p.status, 400, JSON.stringify(body));
        assert.equal(body.error.code, 'base_url_not_public');
        assert.equal(body.error.field, 'baseUrl');
      }
      const now = (await (await asAdmin(`/api/app/provider-accounts/${id}`, {})).json()) as { baseUrl: string };
      assert.equal(now.baseUrl, 'https://models.example.invalid/v1');
      assert.equal((await asAdmin(`/api/app/provider-accounts/${id}`, { method: 'DELETE' })).status, 204);
    });

    test('an account stored before the fix, pointing at loopback, is refused at connection: the service never hears of it, nothing leaks', async () => {
      const now = new Date(fx.core.clock.now()).toISOString();
      const insert = (id: string, slug: string, models: string | null) =>
        fx.core.db.run(
          `INSERT INTO provider_accounts (id, workspace_id, provider, name, slug, base_url, api_key_enc, key_last4, models, enabled, created_by, created_at, updated_at)
           VALUES (?, ?, 'openai-compatible', 'legacy', ?, ?, NULL, NULL, ?, 1, ?, ?, ?)`,
          [id, people.workspace, slug, `http://127.0.0.1:${port}/v1`, models, people.owner.userId, now, now],
        );
      await insert('pa_legacylisted', 'legacy', JSON.stringify(['m']));
      await insert('pa_legacyopen', 'legacy2', null); // no model list: the catalogue asks the upstream
      fx.services.gateway.catalogue.invalidate(people.workspace);

      const r = await chat('legacy/m');
      const body = (await r.json()) as ErrorBody;
      assert.equal(r.status, 502, JSON.stringify(body));
      assert.equal(body.error.code, 'upstream_address_refused');
      assert.ok(!JSON.stringify(body).includes(SECRET));

      const r2 = await chat('legacy2/m');
      const body2 = (await r2.json()) as ErrorBody;
      assert.equal(r2.status, 502, JSON.stringify(body2));
      assert.equal(body2.error.code, 'catalogue_unavailable');
      assert.match(body2.error.message, /not public/);
      assert.ok(!JSON.stringify(body2).includes(SECRET));

      assert.equal(hits, 0, 'the internal service was called');
      assert.ok(!logText().includes(SECRET), 'the log holds the internal answer');
      await fx.core.db.run("UPDATE provider_accounts SET enabled = 0 WHERE id IN ('pa_legacylisted', 'pa_legacyopen')");
      fx.services.gateway.catalogue.invalidate(people.workspace);
    });

    test('the operator target LOCAL_LLM_BASE_URL lives on loopback and works', async () => {
      const r = await chat('local/llama3.2');
      assert.equal(r.status, 200, await r.clone().text());
      assert.equal(((await r.json()) as { object: string }).object, 'chat.completion');
    });
  });
}
