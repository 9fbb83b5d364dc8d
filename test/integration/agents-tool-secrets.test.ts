// Issue 12, item 5: http_request credential headers (defaultHeaders.Authorization …) were readable
// by every reader of the agent and stored in the clear. Now, on both stores: sealed by the vault in
// agents.tools and agent_versions.tools, shown as a preview (`…1234`) by every read of the agent and
// its versions, and sent for real by the tool; an edit that sends the preview back keeps the value.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { sealStoredToolSecrets } from '../../core/agents/service.ts';
import { DIALECTS } from '../helpers/stores.ts';
import { startTestServer, type TestServer } from '../helpers/http-target.ts';
import { httpCall, startRuns, type RunsEnv } from './runs/setup.ts';

const SECRET = 'Bearer tok-SECRET-9f8e7d6c5b4a-1234';
const API_KEY = 'k3y-SECRET-00112233-wxyz';

interface ToolOut {
  type: string;
  name: string;
  config: { allowedHosts?: string[]; defaultHeaders?: Record<string, string> };
}

for (const store of DIALECTS) {
  describe(`http_request credential headers are sealed [${store}]`, () => {
    let r: RunsEnv;
    let target: TestServer;
    let agentId = '';
    let token = '';
    const tools = () => [
      { type: 'http_request', config: { allowedHosts: ['127.0.0.1'], defaultHeaders: { Authorization: SECRET, 'X-Api-Key': API_KEY, 'X-Team': 'blue' } } },
    ];
    const leaks = (text: string) => text.includes('SECRET') || text.includes('9f8e7d6c5b4a') || text.includes('00112233');

    beforeAll(async () => {
      r = await startRuns({ store });
      target = await startTestServer();
      token = await r.token(r.g.people.member);
    });
    afterAll(async () => {
      await target.close();
      await r.close();
    });

    test('create, read, publish, versions: every answer shows previews only, to the author and to every reader', async () => {
      const created = await r.app(r.g.people.member, 'POST', '/api/app/agents', {
        name: 'Keyed', instructions: 'Use tools.', providerAccountId: r.fakeAccount, model: 'fake/gpt-test', tools: tools(),
      });
      assert.equal(created.status, 201, created.text);
      agentId = created.body.id;
      const h = (created.body.tools as ToolOut[])[0]!.config.defaultHeaders!;
      assert.deepEqual(h, { Authorization: '…1234', 'X-Api-Key': '…wxyz', 'X-Team': 'blue' });
      assert.equal((await r.app(r.g.people.member, 'POST', `/api/app/agents/${agentId}/publish`)).status, 201);
      assert.equal((await r.app(r.g.people.member, 'POST', `/api/app/agents/${agentId}/shares`, { workspace: true })).status < 300, true);

      const reads = [
        await r.app(r.g.people.member, 'GET', `/api/app/agents/${agentId}`),
        await r.app(r.g.people.viewer, 'GET', `/api/app/agents/${agentId}`),
        await r.app(r.g.people.viewer, 'GET', '/api/app/agents'),
        await r.app(r.g.people.admin, 'GET', '/api/app/agents?all=1'),
        await r.app(r.g.people.viewer, 'GET', `/api/app/agents/${agentId}/versions`),
        await r.app(r.g.people.viewer, 'GET', `/api/app/agents/${agentId}/versions/1`),
      ];
      for (const res of [created, ...reads]) {
        assert.equal(res.status < 300, true, res.text);
        assert.ok(!leaks(res.text), res.text);
      }
      assert.match(reads[1]!.text, /…1234/);
      assert.match(reads[5]!.text, /…wxyz/);
    });

    test('at rest: neither agents.tools nor agent_versions.tools holds the values (or their base64)', async () => {
      const rows = [
        await r.g.core.db.one<{ tools: string }>('SELECT tools FROM agents WHERE id = ?', [agentId]),
        await r.g.core.db.one<{ tools: string }>('SELECT tools FROM agent_versions WHERE agent_id = ? AND version = 1', [agentId]),
      ];
      for (const row of rows) {
        assert.ok(row, 'row');
        for (const needle of ['SECRET', '9f8e7d6c5b4a', '00112233', Buffer.from(SECRET).toString('base64').slice(0, 16), Buffer.from(API_KEY).toString('base64').slice(0, 16)]) {
          assert.ok(!row.tools.includes(needle), `${needle} in ${row.tools}`);
        }
        assert.match(row.tools, /"X-Team":"blue"/);
      }
    });

    test('the tool sends the real values; the run shows none of them', async () => {
      r.g.openai.once({ toolCalls: [httpCall(`${target.origin}/text?body=ok`)] });
      r.g.openai.once({ text: 'done' });
      const run = await r.start(token, agentId, { inputText: 'call it' });
      assert.equal(run.body.status, 'completed', run.text);
      const seen = target.requests.at(-1)!;
      assert.equal(seen.headers.authorization, SECRET);
      assert.equal(seen.headers['x-api-key'], API_KEY);
      assert.equal(seen.headers['x-team'], 'blue');
      const read = await r.read(token, agentId, run.body.runId);
      assert.ok(!leaks(read.text), read.text);
    });

    test('an edit that sends the previews back keeps the values; a preview with nothing to keep is refused', async () => {
      const current = await r.app(r.g.people.member, 'GET', `/api/app/agents/${agentId}`);
      const edited = (current.body.tools as ToolOut[]).map((t) => ({ ...t, approval: 'never' }));
      const kept = await r.app(r.g.people.member, 'PATCH', `/api/app/agents/${agentId}`, { tools: edited });
      assert.equal(kept.status, 200, kept.text);
      assert.equal((await r.app(r.g.people.member, 'POST', `/api/app/agents/${agentId}/publish`)).status, 201);
      r.g.openai.once({ toolCalls: [httpCall(`${target.origin}/text?body=again`)] });
      r.g.openai.once({ text: 'done' });
      const run = await r.start(token, agentId, { inputText: 'again' });
      assert.equal(run.body.status, 'completed', run.text);
      assert.equal(target.requests.at(-1)!.headers.authorization, SECRET);

      const wrong = structuredClone(edited);
      wrong[0]!.config.defaultHeaders!.Authorization = '…zzzz';
      const bad = await r.app(r.g.people.member, 'PATCH', `/api/app/agents/${agentId}`, { tools: wrong });
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.body.error.code, 'invalid_tool_config');
      assert.equal(bad.body.error.field, 'tools.0.config.defaultHeaders.Authorization');

      const renamed = structuredClone(edited).map((t) => ({ ...t, name: 'other' }));
      assert.equal((await r.app(r.g.people.member, 'PATCH', `/api/app/agents/${agentId}`, { tools: renamed })).status, 400, 'a preview does not move to another tool');

      const rotated = structuredClone(edited);
      rotated[0]!.config.defaultHeaders!.Authorization = 'Bearer rotated-value-5678';
      const ok = await r.app(r.g.people.member, 'PATCH', `/api/app/agents/${agentId}`, { tools: rotated });
      assert.equal(ok.status, 200, ok.text);
      assert.equal((ok.body.tools as ToolOut[])[0]!.config.defaultHeaders!.Authorization, '…5678');
      assert.equal((ok.body.tools as ToolOut[])[0]!.config.defaultHeaders!['X-Api-Key'], '…wxyz');
    });

    test('rows stored in the clear before sealing existed are sealed by sealStoredToolSecrets, once, and keep working', async () => {
      const legacy = JSON.stringify([{ type: 'http_request', name: 'http_request', approval: 'never', config: { allowedHosts: ['127.0.0.1'], defaultHeaders: { Authorization: SECRET } } }]);
      await r.g.core.db.run('UPDATE agents SET tools = ? WHERE id = ?', [legacy, agentId]);
      await r.g.core.db.run('UPDATE agent_versions SET tools = ? WHERE agent_id = ?', [legacy, agentId]);
      // Even before the pass, readers see a preview only.
      assert.ok(!leaks((await r.app(r.g.people.viewer, 'GET', `/api/app/agents/${agentId}/versions`)).text));
      const vault = r.g.services.gateway.vault;
      const versions = Number((await r.g.core.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM agent_versions WHERE agent_id = ?', [agentId]))!.n);
      assert.equal(await sealStoredToolSecrets(r.g.core.db, vault), 1 + versions);
      assert.equal(await sealStoredToolSecrets(r.g.core.db, vault), 0, 'idempotent');
      for (const row of await r.g.core.db.all<{ tools: string }>('SELECT tools FROM agent_versions WHERE agent_id = ?', [agentId])) assert.ok(!leaks(row.tools), row.tools);
      r.g.openai.once({ toolCalls: [httpCall(`${target.origin}/text?body=legacy`)] });
      r.g.openai.once({ text: 'done' });
      const run = await r.start(token, agentId, { inputText: 'legacy' });
      assert.equal(run.body.status, 'completed', run.text);
      assert.equal(target.requests.at(-1)!.headers.authorization, SECRET);
    });
  });
}
