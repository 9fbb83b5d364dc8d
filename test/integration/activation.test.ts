// Activation summaries (issue 5, item 8): public, milestones only. Over HTTP, each milestone flips
// when it happens in a fresh workspace (and only there); the body carries workspace ids and
// booleans, nothing else; an unknown workspace is a 404; the local target counts as a provider
// everywhere; and the list costs the same handful of queries however many workspaces there are.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { listActivation } from '../../core/activation/service.ts';
import type { Dialect, Queryable } from '../../core/store/types.ts';
import { createApp } from '../../daemon/app.ts';
import { testCore } from './http-fixture.ts';
import { cast } from './people.ts';
import { startRuns, type RunsEnv } from './runs/setup.ts';

const MILESTONE_KEYS = ['agentPublished', 'firstRunCompleted', 'memberInvited', 'providerConnected'];

for (const store of ['sqlite', 'postgres'] as Dialect[]) describe(`activation (${store})`, () => {
  let r: RunsEnv;
  beforeAll(async () => {
    r = await startRuns({ store });
  });
  afterAll(() => r.close());

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${r.g.base}${path}`, { headers });
    const text = await res.text();
    return { status: res.status, text, body: JSON.parse(text) };
  };
  const one = async (ws: string) => {
    const res = await get(`/api/activation/${ws}`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  test('each milestone flips as it happens, in its workspace only; activated when all four hold', async () => {
    const { outsider } = r.g.people;
    const ws = outsider.ownWorkspace;
    const none = { providerConnected: false, agentPublished: false, firstRunCompleted: false, memberInvited: false };
    assert.deepEqual(await one(ws), { workspaceId: ws, activated: false, milestones: none });

    // providerConnected: a provider account; deleting it takes the milestone back.
    const pa = await r.app(outsider, 'POST', '/api/app/provider-accounts', { provider: 'openai-compatible', name: 'Mine', slug: 'mine', baseUrl: r.g.openai.url, models: ['gpt-test'] }, ws);
    assert.equal(pa.status, 201, pa.text);
    assert.deepEqual((await one(ws)).milestones, { ...none, providerConnected: true });
    assert.equal((await r.app(outsider, 'DELETE', `/api/app/provider-accounts/${pa.body.id}`, undefined, ws)).status, 204);
    assert.deepEqual((await one(ws)).milestones, none);
    const pa2 = await r.app(outsider, 'POST', '/api/app/provider-accounts', { provider: 'openai-compatible', name: 'Mine', slug: 'mine', baseUrl: r.g.openai.url, models: ['gpt-test'] }, ws);
    assert.equal(pa2.status, 201, pa2.text);

    // agentPublished: a draft is not enough; publishing is.
    const draft = await r.app(outsider, 'POST', '/api/app/agents', { name: 'A', instructions: 'x', providerAccountId: pa2.body.id, model: 'mine/gpt-test' }, ws);
    assert.equal(draft.status, 201, draft.text);
    assert.equal((await one(ws)).milestones.agentPublished, false);
    assert.equal((await r.app(outsider, 'POST', `/api/app/agents/${draft.body.id}/publish`, undefined, ws)).status, 201);
    assert.deepEqual((await one(ws)).milestones, { ...none, providerConnected: true, agentPublished: true });

    // firstRunCompleted: a failed run does not count, a completed one does.
    const token = await r.token(outsider);
    r.g.openai.once({ fault: '5xx' });
    assert.equal((await r.start(token, draft.body.id)).body.status, 'failed');
    assert.equal((await one(ws)).milestones.firstRunCompleted, false);
    r.g.openai.script({ text: 'done' });
    assert.equal((await r.start(token, draft.body.id)).body.status, 'completed');
    const three = await one(ws);
    assert.deepEqual(three.milestones, { ...none, providerConnected: true, agentPublished: true, firstRunCompleted: true });
    assert.equal(three.activated, false);

    // memberInvited: an invitation created (revoking it later does not undo the milestone).
    const inv = await r.app(outsider, 'POST', '/api/app/invitations', { email: 'friend@example.test', role: 'member' }, ws);
    assert.equal(inv.status, 201, inv.text);
    assert.equal((await r.app(outsider, 'DELETE', `/api/app/invitations/${inv.body.id}`, undefined, ws)).status, 200);
    assert.deepEqual(await one(ws), { workspaceId: ws, activated: true, milestones: { providerConnected: true, agentPublished: true, firstRunCompleted: true, memberInvited: true } });

    // Other workspaces are untouched by all this: the member's own has nothing.
    assert.deepEqual(await one(r.g.people.member.ownWorkspace), { workspaceId: r.g.people.member.ownWorkspace, activated: false, milestones: none });
  });

  test('GET /api/activation: every workspace, oldest first, the same entry as the single read', async () => {
    const list = await get('/api/activation');
    assert.equal(list.status, 200);
    assert.ok(Array.isArray(list.body));
    const ids = (await r.g.core.db.all<{ id: string }>('SELECT id FROM workspaces ORDER BY created_at, id')).map((w) => w.id);
    assert.deepEqual(list.body.map((a: { workspaceId: string }) => a.workspaceId), ids);
    for (const a of list.body) assert.deepEqual(a, await one(a.workspaceId));
    // The operator workspace has provider accounts (the harness made them) but no invitation yet.
    const w = list.body.find((a: { workspaceId: string }) => a.workspaceId === r.g.people.workspace);
    assert.equal(w.milestones.providerConnected, true);
  });

  test('public, and milestones only: no names, emails, user ids, counts or times in the body', async () => {
    const anon = await get('/api/activation');
    const withCookie = await get('/api/activation', r.g.people.owner.headers());
    assert.equal(anon.status, 200);
    assert.equal(withCookie.text, anon.text, 'a session changes nothing');
    for (const a of anon.body) {
      assert.deepEqual(Object.keys(a), ['workspaceId', 'activated', 'milestones']);
      assert.deepEqual(Object.keys(a.milestones).sort(), MILESTONE_KEYS);
      for (const v of [a.activated, ...Object.values(a.milestones)]) assert.equal(typeof v, 'boolean');
    }
    const users = await r.g.core.db.all<{ id: string; email: string; name: string }>('SELECT id, email, name FROM users');
    const names = await r.g.core.db.all<{ name: string }>('SELECT name FROM workspaces');
    assert.ok(users.length >= 5);
    for (const u of users) for (const s of [u.id, u.email, `"${u.name}"`]) assert.ok(!anon.text.includes(s), `leaks ${s}`);
    for (const w of names) assert.ok(!anon.text.includes(`"${w.name}"`), `leaks workspace name ${w.name}`);
    assert.ok(!anon.text.includes('@'));
  });

  test('unknown or malformed workspace id → 404', async () => {
    for (const id of ['ws_00000000000000000000', 'nope', "x' OR '1'='1"]) {
      const res = await get(`/api/activation/${encodeURIComponent(id)}`);
      assert.equal(res.status, 404, id);
      assert.equal(res.body.error.code, 'not_found');
    }
  });
});

describe('activation: the local target and the query budget', () => {
  test('LOCAL_LLM_BASE_URL set: providerConnected holds in every workspace', async () => {
    const fx = await testCore({ env: { LOCAL_LLM_BASE_URL: 'http://127.0.0.1:9/v1' } });
    try {
      const people = await cast(fx.core);
      const app = createApp(fx.core, fx.services);
      const res = await app.request('/api/activation');
      const body = (await res.json()) as Array<{ workspaceId: string; milestones: { providerConnected: boolean; agentPublished: boolean } }>;
      assert.equal(body.length, 5);
      assert.ok(body.some((a) => a.workspaceId === people.outsider.ownWorkspace));
      for (const a of body) assert.equal(a.milestones.providerConnected, true);
      for (const a of body) assert.equal(a.milestones.agentPublished, false);
    } finally {
      await fx.cleanup();
    }
  });

  test('the list is a fixed number of grouped queries, not one per workspace', async () => {
    const fx = await testCore();
    try {
      await cast(fx.core); // 5 workspaces
      const counted = (): Queryable & { n: number } => {
        const db = fx.core.db;
        const c = {
          n: 0,
          dialect: db.dialect,
          all: (sql: string, p?: readonly never[]) => (c.n++, db.all(sql, p)),
          one: (sql: string, p?: readonly never[]) => (c.n++, db.one(sql, p)),
          run: (sql: string, p?: readonly never[]) => (c.n++, db.run(sql, p)),
          exec: (sql: string) => (c.n++, db.exec(sql)),
        };
        return c as Queryable & { n: number };
      };
      const small = counted();
      assert.equal((await listActivation({ db: small, localTargetConfigured: false })).length, 5);
      const now = new Date(fx.core.clock.now()).toISOString();
      const owner = (await fx.core.db.one<{ id: string }>('SELECT id FROM users LIMIT 1'))!.id;
      for (let i = 0; i < 40; i++) await fx.core.db.run('INSERT INTO workspaces (id, name, created_by, created_at) VALUES (?, ?, ?, ?)', [`ws_bulk${String(i).padStart(15, '0')}`, `bulk ${i}`, owner, now]);
      const big = counted();
      assert.equal((await listActivation({ db: big, localTargetConfigured: false })).length, 45);
      assert.equal(big.n, small.n);
      assert.ok(big.n <= 5, `queries: ${big.n}`);
    } finally {
      await fx.cleanup();
    }
  });
});
