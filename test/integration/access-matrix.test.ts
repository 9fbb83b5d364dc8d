// The access matrix of issue 3: every route of the accounts surfaces × every kind of caller →
// the expected status. The route list is read from the mounted app, so a route added to these
// surfaces without a row here fails the test, and a row whose route disappeared fails too.
// Callers act on the operator workspace W (x-workspace-id); the outsider owns only their own.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { register } from '../../core/accounts/register.ts';
import { createSession } from '../../core/accounts/sessions.ts';
import { tokenHash } from '../../core/auth/tokens.ts';
import { addMember } from '../../core/accounts/workspaces.ts';
import { createAgent, publishAgent } from '../../core/agents/service.ts';
import { issueCredential } from '../../core/credentials/service.ts';
import { createAccount } from '../../core/provider-accounts/service.ts';
import { createInvitation } from '../../core/invitations/service.ts';
import { createConversation } from '../../core/runs/conversations.ts';
import { appFromFiles } from '../../core/apps/service.ts';
import { newId } from '../../core/kernel/ids.ts';
import { insertRun } from '../../core/runs/repo/runs.ts';
import { createShare } from '../../core/shares/service.ts';
import { issueAgentWebhookToken } from '../../core/workers/agent-token.ts';
import { createWorker } from '../../core/workers/service.ts';
import { createApp, type App } from '../../daemon/app.ts';
import { requireBearer } from '../../daemon/middleware/bearer.ts';
import { accountsDeps } from '../../core/services.ts';
import { credentialDeps } from '../../core/services.ts';
import { invitationDeps } from '../../core/services.ts';
import { shareDeps } from '../../core/services.ts';
import { fakeOpenAi, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { testCore, type Fixture } from './http-fixture.ts';
import { matrixRows, WHO, type Person, type Row, type Who } from './access-matrix.rows.ts';
import { cast, type Cast } from './people.ts';

describe('access matrix (issue 3 routes × callers)', () => {
  let fx: Fixture;
  let app: App;
  let people: Cast;
  let W: string;
  const pat = new Map<Person, string>();
  const key = new Map<Person, string>();
  let n = 0;
  const fresh = () => `fresh${++n}@example.test`;
  // The gateway rows call a real (fake) upstream through a provider account of W; the outsider's
  // own workspace has none, so their member key gets 404 for W's models.
  let upstream: FakeUpstream;
  let accountInW: string;

  beforeAll(async () => {
    fx = await testCore({ env: { SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } }); // the fake upstream is on loopback
    app = createApp(fx.core, fx.services, {
      routes(app, core, services) {
        app.get('/test/bearer/access', requireBearer(core, services, 'access'), (c) => c.json({ ok: true }));
        app.get('/test/bearer/member', requireBearer(core, services, 'member'), (c) => c.json({ ok: true }));
      },
    });
    people = await cast(fx.core);
    W = people.workspace;
    const deps = credentialDeps(fx.core);
    upstream = await fakeOpenAi();
    accountInW = (await account('gw')).id;
    for (const p of ['viewer', 'member', 'admin', 'owner', 'outsider'] as const) {
      pat.set(p, (await issueCredential(deps, { kind: 'access', userId: people[p].userId, workspaceId: null, name: 'matrix' })).token);
      // A viewer cannot hold a member key (POST /api/app/keys refuses them): they present their
      // access token on the key route. The outsider's key is for their own workspace.
      if (p !== 'viewer') {
        const ws = p === 'outsider' ? people.outsider.ownWorkspace : W;
        key.set(p, (await issueCredential(deps, { kind: 'member', userId: people[p].userId, workspaceId: ws, name: 'matrix' })).token);
      }
    }
  });
  afterAll(async () => {
    await fx.cleanup();
    await upstream.close();
  });

  // Fresh targets, made through the domain layer so each request has something of its own to act on.
  const credential = async (kind: 'access' | 'member' | 'admin', p: Person) =>
    (await issueCredential(credentialDeps(fx.core), { kind, userId: people[p].userId, workspaceId: kind === 'access' ? null : W, name: 't', ...(kind === 'admin' ? { scopes: ['usage:read'] } : {}) })).id;
  const invitation = async () =>
    createInvitation(invitationDeps(fx.core), W, { userId: people.owner.userId, role: 'owner' }, { email: fresh(), role: 'member' });
  // A fresh private agent of the member (published when asked), on a provider account with an
  // allowlist so publishing needs no upstream. Admins and owners manage it; the viewer cannot see it.
  let agentAccount: Promise<string> | undefined;
  const memberAgent = async (published = false) => {
    const accounts = fx.services.gateway.accounts;
    agentAccount ??= createAccount(accounts, W, people.owner.userId, { provider: 'openai-compatible', name: 'agents', slug: 'agents-matrix', baseUrl: 'http://127.0.0.1:9/v1', models: ['m'] }).then((a) => a.id);
    const deps = { db: fx.core.db, clock: fx.core.clock, accounts };
    const member = { userId: people.member.userId, workspaceId: W, role: 'member' as const };
    const a = await createAgent(deps, member, { name: 'matrix', instructions: 'x', providerAccountId: await agentAccount, model: 'agents-matrix/m' });
    if (published) await publishAgent(deps, member, a.id);
    return a.id;
  };
  // A conversation of the member with their agent, and a live share link to it.
  const memberConversation = async () =>
    createConversation(fx.core.db, { workspaceId: W, userId: people.member.userId, agentId: await memberAgent(), title: 'matrix', nowIso: new Date(fx.core.clock.now()).toISOString() });
  const memberShare = async () => createShare(shareDeps(fx.core), people.member.userId, { kind: 'conversation', id: await memberConversation() });
  // An app stored by a running run of the member (what create_app does), on their published agent.
  const memberApp = async () => {
    const now = new Date(fx.core.clock.now()).toISOString();
    const runId = newId('run');
    await insertRun(fx.core.db, { id: runId, agent_id: await memberAgent(true), agent_version: 1, workspace_id: W, user_id: people.member.userId, conversation_id: null, status: 'running', input_text: 'x', durable: 0, claim_token: 'matrix', created_at: now, started_at: now, running_since: now });
    const r = await appFromFiles({ runId, workspaceId: W, claimToken: 'matrix', db: fx.core.db, clock: fx.core.clock }, { title: 'matrix', files: [{ path: 'index.html', content: 'x' }] });
    assert.ok(r.ok);
    return r.app.appId;
  };
  // A Worker of the member on their published agent (issue 6), with its webhook ref; and a legacy
  // agent webhook token issued by the member.
  const member = () => ({ userId: people.member.userId, workspaceId: W, role: 'member' as const });
  const memberWorker = async () =>
    createWorker({ db: fx.core.db, clock: fx.core.clock, tokenKey: fx.core.auth.tokenKey, config: fx.core.config }, member(), { name: 'matrix', agentId: await memberAgent(true), inputTemplate: '{{body}}' });
  const agentWebhookToken = async () => (await issueAgentWebhookToken(fx.core.db, fx.core.auth.tokenKey, member(), await memberAgent(true))).token;
  const sharedAgent = async () => {
    const id = await memberAgent(true);
    await fx.core.db.run('UPDATE agents SET shared_with_workspace = 1 WHERE id = ?', [id]);
    return id;
  };
  const account = (slug = `m${++n}`) =>
    createAccount(fx.services.gateway.accounts, W, people.owner.userId, {
      provider: 'openai-compatible', name: 'matrix', slug, baseUrl: upstream.url, models: ['gpt-test', 'text-embed'],
    });
  const limits = { requestsPerMinute: 10_000, tokensPerMinute: null, tokensPerMonth: null };
  const viewerInW = async () => {
    const account = await register({ ...accountsDeps(fx.core), registrationMode: 'open' }, { email: fresh(), password: 'correct horse battery', name: 'target' });
    await addMember(fx.core.db, W, account.user.id, 'viewer', new Date(fx.core.clock.now()).toISOString());
    return account.user.id;
  };
  const ownerInW = async () => {
    const account = await register({ ...accountsDeps(fx.core), registrationMode: 'open' }, { email: fresh(), password: 'correct horse battery', name: 'co-owner' });
    await addMember(fx.core.db, W, account.user.id, 'owner', new Date(fx.core.clock.now()).toISOString());
    return account.user.id;
  };

  const ROWS: Row[] = matrixRows({
    get people() {
      return people;
    },
    get W() {
      return W;
    },
    get accountInW() {
      return accountInW;
    },
    get upstream() {
      return upstream;
    },
    limits,
    fresh,
    next: () => ++n,
    credential,
    invitation,
    memberAgent,
    memberConversation,
    memberShare,
    memberApp,
    memberWorker,
    agentWebhookToken,
    sharedAgent,
    account: () => account(),
    viewerInW,
    ownerInW,
    async restoreSession(p) {
      const person = people[p];
      await fx.core.db.run('INSERT INTO sessions (id_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?) ON CONFLICT (id_hash) DO NOTHING', [
        tokenHash(fx.core.auth.tokenKey, person.token), person.userId, new Date(fx.core.clock.now()).toISOString(), new Date(fx.core.clock.now() + 86_400_000).toISOString(),
      ]);
    },
  });

  const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
  const COVERED = (path: string) =>
    path.startsWith('/api/auth/') || path.startsWith('/api/app/') || path.startsWith('/api/admin/') || path.startsWith('/api/v1/') ||
    path.startsWith('/api/public/webhooks/') || path === '/sign-up' || path === '/sign-in' || path === '/' ||
    path.startsWith('/api/public/share/') || path === '/api/activation' || path.startsWith('/api/activation/') ||
    path === '/api/openapi.json' || path === '/api/docs';

  async function headersFor(row: Row, who: Who): Promise<Record<string, string>> {
    const ownerCookie = () => people.owner.headers({ workspace: W });
    if (who === 'anonymous') return {};
    if (who === 'wrongCredential') {
      return row.surface === 'bearer-access' || row.surface === 'bearer-member' || row.surface === 'webhook'
        ? ownerCookie()
        : { authorization: `Bearer ${pat.get('owner')}` };
    }
    if (row.surface === 'bearer-access') return { authorization: `Bearer ${pat.get(who)}` };
    if (row.surface === 'bearer-member') return { authorization: `Bearer ${key.get(who) ?? pat.get(who)}` };
    if (!row.freshSession) return people[who].headers({ workspace: W });
    const s = await createSession(accountsDeps(fx.core), people[who].userId);
    return { cookie: `service_session=${s.token}; service_csrf=${s.csrf}`, 'x-csrf-token': s.csrf, 'x-workspace-id': W };
  }

  async function send(row: Row, who: Who, override?: (h: Record<string, string>) => void): Promise<Response> {
    const prepared = (await row.prepare?.(who)) ?? {};
    const headers = await headersFor(row, who);
    override?.(headers);
    const init: RequestInit = { method: row.method, headers };
    if (prepared.body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(prepared.body);
    }
    const res = await app.request(prepared.path ?? row.route, init);
    await row.after?.(who);
    return res;
  }

  test('every mounted route of the accounts surfaces has a row, and every row is mounted', () => {
    const mounted = new Set(app.routes.filter((r) => r.method !== 'ALL' && (COVERED(r.path) || r.path.startsWith('/test/bearer/'))).map((r) => `${r.method} ${r.path}`));
    const rows = new Set(ROWS.map((r) => `${r.method} ${r.route}`));
    assert.deepEqual([...mounted].filter((r) => !rows.has(r)), [], 'mounted routes without an access-matrix row: add them to ROWS');
    assert.deepEqual([...rows].filter((r) => !mounted.has(r)), [], 'rows for routes that are not mounted');
  });

  for (const row of ROWS) {
    test(`${row.method} ${row.route}${row.variant ?? ''}`, async () => {
      const got: Record<string, number> = {};
      const bodies: Record<string, string> = {};
      for (const who of WHO) {
        const res = await send(row, who);
        got[who] = res.status;
        bodies[who] = await res.text();
      }
      const want = Object.fromEntries(WHO.map((w, i) => [w, row.expect[i]]));
      assert.deepEqual(got, want, `bodies: ${JSON.stringify(bodies, null, 1).slice(0, 3000)}`);
    });
  }

  test('CSRF: missing or wrong x-csrf-token → 403 on every state-changing session route, for every role', async () => {
    const rows = ROWS.filter((r) => r.surface === 'session' && STATE_CHANGING.has(r.method));
    // Every state-changing /api/app route the app mounts, and logout, is among them.
    const mounted = app.routes.filter((r) => STATE_CHANGING.has(r.method) && (r.path.startsWith('/api/app/') || (r.path.startsWith('/api/auth/') && !['/api/auth/register', '/api/auth/login', '/api/auth/reset-password'].includes(r.path))));
    assert.deepEqual(new Set(rows.map((r) => `${r.method} ${r.route}`)), new Set(mounted.map((r) => `${r.method} ${r.path}`)));
    assert.ok(rows.length >= 12, `state-changing session routes: ${rows.length}`);
    for (const row of rows) {
      for (const who of ['viewer', 'member', 'admin', 'owner'] as const) {
        // Missing; another user's valid CSRF value; a value of the right shape that signs nothing.
        const cases: Array<[string, (h: Record<string, string>) => void]> = [
          ['missing', (h) => delete h['x-csrf-token']],
          ['another session', (h) => (h['x-csrf-token'] = (who === 'owner' ? people.viewer : people.owner).csrf)],
          ['forged', (h) => (h['x-csrf-token'] = 'A'.repeat(43))],
        ];
        for (const [label, change] of cases) {
          const res = await send(row, who, change);
          const body = (await res.json()) as { error: { code: string } };
          assert.equal(res.status, 403, `${row.method} ${row.route} as ${who}, CSRF ${label}`);
          assert.equal(body.error.code, 'csrf_failed');
        }
      }
    }
  });

  test('metrics: an svc_admin_ token with usage:read → 200, without the scope → 403; svc_live_ → 401', async () => {
    const deps = credentialDeps(fx.core);
    const issue = async (scopes: string[]) =>
      (await issueCredential(deps, { kind: 'admin', userId: people.admin.userId, workspaceId: W, name: 'm', scopes })).token;
    const get = async (token: string | undefined) => (await app.request('/api/admin/metrics', { headers: { authorization: `Bearer ${token}` } })).status;
    assert.equal(await get(await issue(['usage:read'])), 200);
    assert.equal(await get(await issue(['members:read', 'invitations:write'])), 403);
    assert.equal(await get(key.get('owner')), 401);
    assert.equal(await get(pat.get('owner')), 401);
    // Bearer wins over a cookie: an operator's session does not rescue a bad token.
    const res = await app.request('/api/admin/metrics', { headers: { ...people.owner.headers(), authorization: `Bearer ${key.get('owner')}` } });
    assert.equal(res.status, 401);
  });

  test('/api/v1 takes only a member key: a session cookie, an access token or an admin token → 401', async () => {
    const admin = (await issueCredential(credentialDeps(fx.core), { kind: 'admin', userId: people.owner.userId, workspaceId: W, name: 'm', scopes: ['usage:read'] })).token;
    const wrong: Array<[string, (h: Record<string, string>) => void]> = [
      ['cookie', (h) => Object.assign(h, people.owner.headers({ workspace: W }))],
      ['access token', (h) => (h.authorization = `Bearer ${pat.get('owner')}`)],
      ['admin token', (h) => (h.authorization = `Bearer ${admin}`)],
      ['cookie beside a bad key', (h) => Object.assign(h, people.owner.headers({ workspace: W }), { authorization: 'Bearer svc_live_nope' })],
    ];
    const rows = ROWS.filter((r) => r.surface === 'bearer-member' && r.route.startsWith('/api/v1/'));
    assert.equal(rows.length, 8);
    const before = upstream.calls;
    for (const row of rows) {
      for (const [label, set] of wrong) {
        const res = await send(row, 'owner', (h) => {
          delete h.authorization;
          set(h);
        });
        const body = (await res.json()) as { error: { type: string } };
        assert.equal(res.status, 401, `${row.method} ${row.route} with ${label}`);
        assert.equal(body.error.type, 'authentication_error', 'OpenAI error shape under /api/v1');
      }
    }
    assert.equal(upstream.calls, before, 'no refused caller reached the upstream');
  });

  test('invitation-email webhook: the shared secret is its credential', async () => {
    const row = ROWS.find((r) => r.route === '/api/public/webhooks/invitation-email')!;
    const ok = await send(row, 'anonymous', (h) => (h['x-svc-webhook-secret'] = fx.core.secrets.SERVICE_INVITATION_EMAIL_SECRET));
    assert.equal(ok.status, 204);
    const wrong = await send(row, 'owner', (h) => (h['x-svc-webhook-secret'] = 'x'.repeat(fx.core.secrets.SERVICE_INVITATION_EMAIL_SECRET.length)));
    assert.equal(wrong.status, 401);
  });
});
