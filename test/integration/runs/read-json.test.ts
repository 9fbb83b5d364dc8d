// The run read answers readRunJson: readRun's document written from the stored JSON text without a
// parse. These runs cover every kind of stored value (model input/output, tool input as the model
// sent it — canonical, spaced, not JSON at all —, tool output text, a failed model step, an approval
// wait, event data with nested values and unicode, generated apps) and the two renderings must be
// the same bytes, directly and through HTTP. On both stores.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { readRun } from '../../../core/runs/read.ts';
import { readRunJson } from '../../../core/runs/read-json.ts';
import type { Dialect } from '../../../core/store/types.ts';
import { startTestServer, type TestServer } from '../../helpers/http-target.ts';
import { startRuns, type RunsEnv } from './setup.ts';

for (const store of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`run read JSON (${store})`, () => {
    let r: RunsEnv;
    let target: TestServer;
    let token: string;
    let plain: string;
    let tools: string;
    let gated: string;

    beforeAll(async () => {
      r = await startRuns({ store });
      target = await startTestServer();
      token = await r.token(r.g.people.member);
      plain = await r.agent(r.g.people.member);
      tools = await r.agent(r.g.people.member, { tools: [{ type: 'http_request' }] });
      gated = await r.agent(r.g.people.member, { tools: [{ type: 'http_request', approval: 'always' }] });
    });
    afterAll(async () => {
      await target.close();
      await r.close();
    });

    const same = async (agentId: string, runId: string) => {
      const userId = r.g.people.member.userId;
      const expected = JSON.stringify(await readRun(r.rt.deps, agentId, runId, userId));
      assert.equal(await readRunJson(r.rt.deps, agentId, runId, userId), expected);
      const res = await r.read(token, agentId, runId);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.equal(res.text, expected);
      return res.body;
    };

    test('a one-step completed run, with unicode and quotes in the answer', async () => {
      r.g.openai.once({ text: 'Héllo "wörld" \u2028 ✓ \\ done', usage: { input: 7, output: 2, cached: 3 } });
      const s = await r.start(token, plain, { inputText: 'say "hi" ☃' });
      assert.equal(s.body.status, 'completed', s.text);
      const body = await same(plain, s.body.runId);
      assert.equal(body.steps.length, 1);
    });

    test('tool inputs as the model sent them: canonical, spaced, and not JSON; tool output text', async () => {
      const url = `${target.origin}/text`;
      r.g.openai.once({
        toolCalls: [
          { id: 'c1', name: 'http_request', arguments: JSON.stringify({ method: 'GET', url }) },
          { id: 'c2', name: 'http_request', arguments: `{ "method" : "GET",\n  "url": "${url}" }` },
          { id: 'c3', name: 'http_request', arguments: 'not json at all' },
        ],
      });
      r.g.openai.once({ text: 'read them' });
      const s = await r.start(token, tools);
      assert.equal(s.body.status, 'completed', s.text);
      const body = await same(tools, s.body.runId);
      assert.deepEqual(body.steps.map((x: any) => x.kind), ['model', 'tool', 'tool', 'tool', 'model']);
      assert.equal(body.steps[3].input, 'not json at all', 'kept as a string');
      assert.deepEqual(body.steps[2].input, { method: 'GET', url });
    });

    test('a failed model call (step error, error event) and a run waiting for approval', async () => {
      r.g.openai.once({ fault: '5xx' });
      const failed = await r.start(token, plain);
      assert.equal(failed.body.status, 'failed', failed.text);
      await same(plain, failed.body.runId);

      r.g.openai.once({ toolCalls: [{ id: 'g1', name: 'http_request', arguments: JSON.stringify({ method: 'GET', url: `${target.origin}/text` }) }] });
      const waiting = await r.start(token, gated);
      assert.equal(waiting.body.status, 'waiting_input', waiting.text);
      const body = await same(gated, waiting.body.runId);
      assert.equal(body.steps.at(-1).status, 'waiting_approval');
    });

    test('a run with apps (two versions, unicode title and paths) lists them the same way', async () => {
      const maker = await r.agent(r.g.people.member, { tools: [{ type: 'create_app' }] });
      const args = (content: string) => JSON.stringify({ title: 'Wörld "app"', files: [{ path: 'index.html', content }, { path: 'ü/ß.js', content: '1' }] });
      r.g.openai.once({ toolCalls: [{ id: 'a1', name: 'create_app', arguments: args('v1') }, { id: 'a2', name: 'create_app', arguments: args('v2!') }] });
      r.g.openai.once({ text: 'made' });
      const s = await r.start(token, maker);
      assert.equal(s.body.status, 'completed', s.text);
      const body = await same(maker, s.body.runId);
      assert.deepEqual(body.apps.map((a: any) => [a.title, a.version, a.files.map((f: any) => [f.path, f.size])]), [
        ['Wörld "app"', 1, [['index.html', 2], ['ü/ß.js', 1]]],
        ['Wörld "app"', 2, [['index.html', 3], ['ü/ß.js', 1]]],
      ]);
    });
  });
}
