// Issue 12, item 8: an upstream that echoes the provider account's key in its error ("Incorrect API
// key provided: …") must not hand it to members — not in the gateway's answer, not in a failed
// run's error, and not in any log line. On both stores (the run's error is stored).
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { DIALECTS } from '../../helpers/stores.ts';
import { startRuns, type RunsEnv } from '../runs/setup.ts';
import { json } from '../people.ts';

// Shaped like no known provider key, so only the "known secret" rule can catch it.
const KEY = 'acct-Zq81-SECRET-key-0042-wlmx';

for (const store of DIALECTS) {
  describe(`an upstream echoing the account key [${store}]`, () => {
    let r: RunsEnv;
    let accountId = '';
    beforeAll(async () => {
      r = await startRuns({ store });
      const res = await r.g.app('/api/app/provider-accounts', json('POST', { provider: 'openai-compatible', name: 'Keyed', slug: 'keyed', baseUrl: r.g.openai.url, apiKey: KEY, models: ['gpt-test'] }));
      assert.equal(res.status, 201, await res.clone().text());
      accountId = ((await res.json()) as { id: string }).id;
    });
    afterAll(() => r.close());

    const echo = (status: number) =>
      r.g.openai.once({ status, errorBody: { error: { message: `Incorrect API key provided: ${KEY}. You passed ${KEY.slice(0, 14)}…${KEY.slice(-4)}; Authorization: Bearer ${KEY}`, type: 'invalid_request_error', code: 'invalid_api_key' } } });

    test('the gateway answer and the log carry neither the key nor a fragment of it', async () => {
      for (const status of [401, 403, 400, 500]) {
        echo(status);
        const from = r.g.fx.logs.length;
        const res = await fetch(`${r.g.base}/api/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${r.g.memberKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'keyed/gpt-test', messages: [{ role: 'user', content: 'hi' }] }),
        });
        const text = await res.text();
        assert.ok(res.status >= 400, `${status}: ${res.status}`);
        assert.ok(!text.includes(KEY) && !text.includes('SECRET-key'), `${status}: ${text}`);
        assert.match(text, /\[redacted\]/);
        const logs = JSON.stringify(r.g.fx.logs.slice(from));
        assert.ok(!logs.includes(KEY) && !logs.includes('SECRET-key'), `${status}: a log line holds the key`);
      }
    });

    test("a run failing on it stores and shows a redacted error", async () => {
      const agentId = await r.agent(r.g.people.member, { providerAccountId: accountId, model: 'keyed/gpt-test' });
      const token = await r.token(r.g.people.member);
      echo(401);
      const start = await r.start(token, agentId);
      assert.equal(start.status, 201, start.text);
      assert.equal(start.body.status, 'failed');
      const read = await r.read(token, agentId, start.body.runId);
      for (const text of [start.text, read.text]) assert.ok(!text.includes(KEY) && !text.includes('SECRET-key'), text);
      const row = await r.g.core.db.one<{ error_message: string }>('SELECT error_message FROM runs WHERE id = ?', [start.body.runId]);
      assert.ok(row && !row.error_message.includes('SECRET-key'), row?.error_message);
      assert.ok(!JSON.stringify(r.g.fx.logs).includes('SECRET-key'), 'a log line holds the key');
    });
  });
}
