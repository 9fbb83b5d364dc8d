// SPEC "Errors" for the run API through HTTP: 404 for every agent the caller may not run (never
// saying which), another user's run and conversation invisible, 400 naming providerAccountId or
// model when the published target went stale, 401 for anything but a valid access token (a
// session cookie and a member key included). None of them reaches the model.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import { startRuns, type Res, type RunsEnv } from './setup.ts';

describe('run API errors (SQLite)', () => {
  let r: RunsEnv;
  let member: string;
  let admin: string;
  let mine: string;

  beforeAll(async () => {
    r = await startRuns();
    member = await r.token(r.g.people.member);
    admin = await r.token(r.g.people.admin);
    mine = await r.agent(r.g.people.member);
  });
  afterAll(() => r.close());
  beforeEach(() => r.g.openai.reset());

  const code = (res: Res, status: number, c: string, field?: string) => {
    assert.equal(res.status, status, res.text);
    assert.equal(res.body.error.code, c, res.text);
    if (field !== undefined) assert.equal(res.body.error.field, field, res.text);
    assert.ok(res.body.error.requestId);
  };

  test('404: unpublished, not shared, deleted, another workspace, unknown — one answer for all', async () => {
    const { owner, outsider } = r.g.people;
    const draft = await r.agent(r.g.people.member, {}, { publish: false });
    const ownersPrivate = await r.agent(owner);
    const deleted = await r.agent(r.g.people.member);
    assert.equal((await r.app(r.g.people.member, 'DELETE', `/api/app/agents/${deleted}`)).status, 204);
    // The outsider's own workspace with its own account on the same fake, shared with everyone there.
    const ws = outsider.ownWorkspace;
    const pa = await r.app(outsider, 'POST', '/api/app/provider-accounts', { provider: 'openai-compatible', name: 'Fake', slug: 'fake', baseUrl: r.g.openai.url, models: ['gpt-test'] }, ws);
    assert.equal(pa.status, 201, pa.text);
    const foreign = await r.agent(outsider, { providerAccountId: pa.body.id }, { ws });
    assert.equal((await r.app(outsider, 'POST', `/api/app/agents/${foreign}/shares`, { workspace: true }, ws)).status, 200);

    const bodies = new Set<string>();
    for (const id of [draft, ownersPrivate, deleted, foreign, 'agt_00000000000000000000', 'nonsense']) {
      const res = await r.start(member, id);
      code(res, 404, 'not_found');
      bodies.add(res.body.error.message);
      code(await r.list(member, id), 404, 'not_found'); // the list answers as the start does
    }
    assert.equal(bodies.size, 1, `the same message for every case: ${[...bodies]}`);
    assert.equal(r.g.openai.calls, 0);
    // The outsider runs their own agent fine (so the 404 above was about the caller).
    const outsiderToken = await r.token(outsider);
    assert.equal((await r.start(outsiderToken, foreign)).body.status, 'completed');

    // Sharing with the member makes the owner's agent runnable; unsharing closes it again.
    assert.equal((await r.app(owner, 'POST', `/api/app/agents/${ownersPrivate}/shares`, { userId: r.g.people.member.userId })).status, 200);
    assert.equal((await r.start(member, ownersPrivate)).status, 201);
    assert.equal((await r.app(owner, 'DELETE', `/api/app/agents/${ownersPrivate}/shares`, { userId: r.g.people.member.userId })).status, 200);
    code(await r.start(member, ownersPrivate), 404, 'not_found');
    // Publishing the draft makes it runnable.
    assert.equal((await r.app(r.g.people.member, 'POST', `/api/app/agents/${draft}/publish`)).status, 201);
    assert.equal((await r.start(member, draft)).status, 201);
  });

  test("404: another user's run (read, and through another agent id); another user's conversationId", async () => {
    const shared = await r.agent(r.g.people.member);
    assert.equal((await r.app(r.g.people.member, 'POST', `/api/app/agents/${shared}/shares`, { workspace: true })).status, 200);
    const run = await r.start(member, shared, { inputText: 'private', conversation: true });
    assert.equal(run.status, 201);
    code(await r.read(admin, shared, run.body.runId), 404, 'not_found');
    code(await r.read(member, mine, run.body.runId), 404, 'not_found'); // right user, wrong agent
    code(await r.read(member, shared, 'run_00000000000000000000'), 404, 'not_found');
    assert.ok(!(await r.list(admin, shared)).body.data.some((x: { runId: string }) => x.runId === run.body.runId));

    const calls = r.g.openai.calls;
    code(await r.start(admin, shared, { inputText: 'continue', conversationId: run.body.conversationId }), 404, 'not_found');
    code(await r.start(member, mine, { inputText: 'other agent', conversationId: run.body.conversationId }), 404, 'not_found');
    assert.equal(r.g.openai.calls, calls, 'refused before any model call');
    assert.equal((await r.start(member, shared, { inputText: 'continue', conversationId: run.body.conversationId })).status, 201);
  });

  test('400 naming providerAccountId: the account disabled, then deleted, after publishing', async () => {
    const { owner } = r.g.people;
    const pa = await r.app(owner, 'POST', '/api/app/provider-accounts', { provider: 'openai-compatible', name: 'Spare', slug: 'spare', baseUrl: r.g.openai.url, models: ['gpt-test'] });
    assert.equal(pa.status, 201, pa.text);
    const agent = await r.agent(r.g.people.member, { providerAccountId: pa.body.id, model: 'spare/gpt-test' });
    assert.equal((await r.start(member, agent)).body.status, 'completed');

    assert.equal((await r.app(owner, 'PATCH', `/api/app/provider-accounts/${pa.body.id}`, { enabled: false })).status, 200);
    let res = await r.start(member, agent);
    code(res, 400, 'provider_account_invalid', 'providerAccountId');
    assert.match(res.body.error.message, /disabled.*publish it again/s);

    assert.equal((await r.app(owner, 'DELETE', `/api/app/provider-accounts/${pa.body.id}`)).status, 204);
    res = await r.start(member, agent);
    code(res, 400, 'provider_account_invalid', 'providerAccountId');
    assert.match(res.body.error.message, /no longer exists.*publish it again/s);
    assert.equal(r.g.openai.calls, 1, 'only the first run reached the model');
  });

  test('400 naming model: the account stops offering it after publishing; a version without a model', async () => {
    const { owner } = r.g.people;
    const pa = await r.app(owner, 'POST', '/api/app/provider-accounts', { provider: 'openai-compatible', name: 'Narrow', slug: 'narrow', baseUrl: r.g.openai.url, models: ['gpt-test', 'gpt-old'] });
    assert.equal(pa.status, 201, pa.text);
    const agent = await r.agent(r.g.people.member, { providerAccountId: pa.body.id, model: 'narrow/gpt-old' });
    assert.equal((await r.app(owner, 'PATCH', `/api/app/provider-accounts/${pa.body.id}`, { models: ['gpt-test'] })).status, 200);
    const res = await r.start(member, agent);
    code(res, 400, 'model_invalid', 'model');
    assert.match(res.body.error.message, /not offered.*publish it again/s);

    const noModel = await r.agent(r.g.people.member, { model: null }, { publish: false });
    const pub = await r.app(r.g.people.member, 'POST', `/api/app/agents/${noModel}/publish`);
    code(pub, 400, 'model_invalid', 'model'); // a version without a model is never published
    code(await r.start(member, noModel), 404, 'not_found');
    assert.equal(r.g.openai.calls, 0);
  });

  test('401: no token, a malformed or unknown token, a revoked token, a session cookie, a member key', async () => {
    const url = `${r.g.base}/api/agents/${mine}/runs`;
    const body = JSON.stringify({ inputText: 'x' });
    const post = (headers: Record<string, string>) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const revokedTok = await r.app(r.g.people.member, 'POST', '/api/app/access-tokens', { name: 'gone' });
    assert.equal((await r.app(r.g.people.member, 'DELETE', `/api/app/access-tokens/${revokedTok.body.id}`)).status, 200);
    const cases: Record<string, Record<string, string>> = {
      none: {},
      malformed: { authorization: 'Bearer svc_pat_nonsense' },
      'not bearer': { authorization: `Basic ${member}` },
      unknown: { authorization: `Bearer ${member.slice(0, -12)}aaaaaaaaaaaa` },
      revoked: { authorization: `Bearer ${revokedTok.body.token}` },
      'session cookie + csrf': r.g.people.member.headers({ workspace: r.g.people.workspace }),
      'member key': { authorization: `Bearer ${r.g.memberKey}` },
    };
    for (const [name, headers] of Object.entries(cases)) {
      for (const res of [await post(headers), await fetch(url, { headers }), await fetch(`${url}/run_00000000000000000000`, { headers })]) {
        assert.equal(res.status, 401, `${name}: ${res.status}`);
        const b = (await res.json()) as { error: { code: string } };
        assert.ok(b.error.code, name);
      }
    }
    assert.equal(r.g.openai.calls, 0);
    assert.equal((await post({ authorization: `Bearer ${member}` })).status, 201, 'the same request with the access token works');
  });
});
