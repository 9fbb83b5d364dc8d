// Issue 12, items 10 and 11, over real HTTP on both stores: a NUL (U+0000) anywhere — a JSON field,
// a path parameter, a query value, a webhook's rendered input — is a 400 nul_not_allowed naming
// where it was (PostgreSQL answered 500 and SQLite stored it), with nothing written; bad
// percent-encoding in a model id and JSON nested thousands deep (chat, embeddings, a Worker
// webhook read through {{json.a}}) are 400s with a clear message instead of 500s.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { startRuns, type RunsEnv } from './runs/setup.ts';

const deepArray = (n: number) => '['.repeat(n) + '"x"' + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

for (const store of ['sqlite', 'postgres'] as const) {
  describe(`bad input is a 400, never a 500 (${store})`, () => {
    let e: RunsEnv;
    let agent: string;
    beforeAll(async () => {
      e = await startRuns({ store });
      agent = await e.agent(e.g.people.owner);
    });
    afterAll(() => e.close());

    const raw = async (method: string, path: string, headers: Record<string, string>, body?: string) => {
      const r = await fetch(e.g.base + path, { method, headers, ...(body === undefined ? {} : { body }) });
      const text = await r.text();
      return { status: r.status, text, body: text ? JSON.parse(text) : undefined };
    };
    const owner = () => ({ ...e.g.people.owner.headers({ workspace: e.g.people.workspace }), 'content-type': 'application/json' });
    const member = () => ({ authorization: `Bearer ${e.g.memberKey}`, 'content-type': 'application/json' });
    const agentCount = async () => Number((await e.g.core.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM agents'))!.n);

    test('a NUL in a JSON field: 400 nul_not_allowed naming the field, and nothing stored', async () => {
      const before = await agentCount();
      const r = await raw('POST', '/api/app/agents', owner(), JSON.stringify({ name: 'a\u0000b', instructions: 'x' }));
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.error.code, 'nul_not_allowed');
      assert.equal(r.body.error.field, 'name');
      assert.match(r.body.error.message, /^name contains a NUL character \(U\+0000\)/);
      assert.equal(await agentCount(), before);
      // Sign-in, where the address is looked up before anything else, and the run API.
      const login = await raw('POST', '/api/auth/login', { 'content-type': 'application/json' }, JSON.stringify({ email: 'owner\u0000@example.test', password: 'x' }));
      assert.equal(login.status, 400, login.text);
      assert.equal(login.body.error.field, 'email');
      const tok = await e.token(e.g.people.owner);
      const run = await raw('POST', `/api/agents/${agent}/runs`, { authorization: `Bearer ${tok}`, 'content-type': 'application/json' }, JSON.stringify({ inputText: 'hi\u0000' }));
      assert.equal(run.status, 400, run.text);
      assert.equal(run.body.error.field, 'inputText');
    });

    test('a NUL in a path parameter or a query value: 400 nul_not_allowed', async () => {
      for (const path of ['/api/app/agents/agt_%00', `/api/app/agents/${agent}?all=%00`, '/api/activation/ws%00x']) {
        const r = await raw('GET', path, owner());
        assert.equal(r.status, 400, `${path}: ${r.text}`);
        assert.equal(r.body.error.code, 'nul_not_allowed');
        assert.match(r.body.error.message, /URL/);
      }
      const tok = await e.token(e.g.people.owner);
      const r = await raw('GET', `/api/agents/${agent}/runs/run_%00`, { authorization: `Bearer ${tok}` });
      assert.equal(r.status, 400, r.text);
    });

    test('the gateway: a NUL in a message is refused in OpenAI’s error shape, naming the param', async () => {
      const body = JSON.stringify({ model: 'fake/gpt-test', messages: [{ role: 'user', content: 'hi\u0000' }] });
      const calls = e.g.openai.calls;
      for (const path of ['/api/v1/chat/completions', '/api/v1/router']) {
        const r = await raw('POST', path, member(), body);
        assert.equal(r.status, 400, `${path}: ${r.text}`);
        assert.deepEqual(r.body.error, { message: r.body.error.message, type: 'invalid_request_error', param: 'messages.0.content', code: 'nul_not_allowed' });
      }
      assert.equal(e.g.openai.calls, calls, 'nothing reached the upstream');
    });

    test('GET /api/v1/models/%ZZ (bad percent-encoding): 400 invalid_model_id', async () => {
      for (const id of ['%ZZ', '%E0%A4%A', 'fake%2F%ED%A0%80']) {
        const r = await raw('GET', `/api/v1/models/${id}`, member());
        assert.equal(r.status, 400, `${id}: ${r.text}`);
        assert.equal(r.body.error.code, 'invalid_model_id');
        assert.equal(r.body.error.param, 'model');
      }
      assert.equal((await raw('GET', '/api/v1/models/fake%2Fgpt-test', member())).status, 200, 'an encoded slash still works');
    });

    test('chat and embeddings nested 5,000 deep: 400 json_too_deep, the upstream never called', async () => {
      const calls = e.g.openai.calls;
      const chat = `{"model":"fake/gpt-test","messages":[{"role":"user","content":${deepArray(5000)}}]}`;
      const embeddings = `{"model":"fake/text-embed","input":${deepArray(5000)}}`;
      for (const [path, body] of [['/api/v1/chat/completions', chat], ['/api/v1/embeddings', embeddings], ['/api/v1/responses', `{"model":"fake/gpt-test","input":${deepArray(5000)}}`]] as const) {
        const r = await raw('POST', path, member(), body);
        assert.equal(r.status, 400, `${path}: ${r.text.slice(0, 300)}`);
        assert.equal(r.body.error.code, 'json_too_deep');
        assert.equal(r.body.error.message, 'The request body is nested more than 100 levels deep.');
      }
      assert.equal(e.g.openai.calls, calls);
      const app = await raw('PATCH', `/api/app/agents/${agent}`, owner(), `{"settings":${deepObject(5000)}}`);
      assert.equal(app.status, 400, app.text.slice(0, 300));
      assert.equal(app.body.error.code, 'json_too_deep');
    });

    test('a Worker webhook: a body nested 5,000 deep read through {{json.a}}, or a NUL rendered into the input → 400, no run', async () => {
      const w = await e.app(e.g.people.owner, 'POST', '/api/app/workers', { name: 'deep', agentId: agent, inputTemplate: 'got {{json.a}}' });
      assert.equal(w.status, 201, w.text);
      const runs = async () => Number((await e.g.core.db.one<{ n: number }>('SELECT COUNT(*) AS n FROM runs'))!.n);
      const before = await runs();
      const deep = await raw('POST', `/api/public/webhooks/workers/${w.body.token}`, { 'content-type': 'application/json' }, deepObject(5000));
      assert.equal(deep.status, 400, deep.text);
      assert.equal(deep.body.error.code, 'json_too_deep');
      assert.match(deep.body.error.message, /webhook body is nested more than 100 levels/);
      const nul = await raw('POST', `/api/public/webhooks/workers/${w.body.token}`, { 'content-type': 'application/json' }, '{"a":"x\\u0000y"}');
      assert.equal(nul.status, 400, nul.text);
      assert.equal(nul.body.error.code, 'nul_not_allowed');
      assert.equal(await runs(), before);
      const ok = await raw('POST', `/api/public/webhooks/workers/${w.body.token}`, { 'content-type': 'application/json' }, '{"a":"fine"}');
      assert.equal(ok.status, 202, ok.text);
    });
  });
}
