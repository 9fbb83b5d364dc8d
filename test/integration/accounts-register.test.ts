// Registration through HTTP: SPEC "Workspace and accounts", Configuration rules 1–3, and the
// invitation rules at sign-up (one 403 body for every bad token).
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { issueToken } from '../../core/auth/tokens.ts';
import { revokeInvitation } from '../../core/invitations/service.ts';
import { INVITATION_TTL_MS } from '../../core/invitations/types.ts';
import { createApp, type App } from '../../daemon/app.ts';
import { errorOf, invite, jsonInit, signUp, userCount, type AccountBody } from './accounts-helpers.ts';
import { testCore, type Fixture } from './http-fixture.ts';

const register = (app: App, body: unknown) => app.request('/api/auth/register', jsonInit('POST', body));

describe('registration, invite_only (default mode)', () => {
  let fx: Fixture;
  let app: App;
  let owner: AccountBody;
  beforeAll(async () => {
    fx = await testCore();
    app = createApp(fx.core, fx.services);
  });
  afterAll(() => fx.cleanup());

  test('the first registration on an empty store owns the operator workspace and is signed in', async () => {
    assert.equal(fx.core.config.SERVICE_REGISTRATION_MODE, 'invite_only');
    const { body, session } = await signUp(app, { email: 'Ana@Example.com' });
    owner = body;
    assert.match(body.user.id, /^usr_/);
    assert.equal(body.user.email, 'ana@example.com');
    assert.equal(body.user.name, 'ana', 'name defaults to the local part');
    assert.deepEqual(Object.keys(body), ['user', 'workspaces']);
    assert.equal(body.workspaces.length, 1);
    assert.equal(body.workspaces[0]!.role, 'owner');
    assert.match(body.workspaces[0]!.id, /^ws_/);
    const ws = await fx.core.db.one<{ is_operator: number; created_by: string }>('SELECT is_operator, created_by FROM workspaces WHERE id = ?', [body.workspaces[0]!.id]);
    assert.equal(Number(ws!.is_operator), 1, 'operator workspace');
    assert.equal(ws!.created_by, body.user.id);
    // The cookies from sign-up are a working session.
    const res = await app.request('/api/auth/session', { headers: session.headers({ csrf: false }) });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ...body, activeWorkspaceId: body.workspaces[0]!.id });
  });

  test('a second account without an invitation is refused: 403 invitation_required, nothing created', async () => {
    const res = await register(app, { email: 'bob@example.com', password: 'correct horse battery' });
    assert.equal(res.status, 403);
    assert.equal((await errorOf(res)).code, 'invitation_required');
    assert.equal(await userCount(fx.core), 1);
    assert.equal(res.headers.getSetCookie().length, 0, 'no session for a refused sign-up');
  });

  test('an invited account owns a workspace of its own and joins the inviting workspace with the invited role', async () => {
    const opWs = owner.workspaces[0]!.id;
    const inv = await invite(fx.core, opWs, 'Bob@Example.com', 'viewer', owner.user.id);
    const { body } = await signUp(app, { email: 'BOB@example.COM', name: 'Bob', invitationToken: inv.token });
    assert.equal(body.user.email, 'bob@example.com');
    assert.equal(body.user.name, 'Bob');
    assert.equal(body.workspaces.length, 2);
    const own = body.workspaces.find((w) => w.id !== opWs)!;
    assert.equal(own.role, 'owner', 'own workspace, owned');
    assert.deepEqual(body.workspaces.find((w) => w.id === opWs), { id: opWs, name: owner.workspaces[0]!.name, role: 'viewer' });
    const ws = await fx.core.db.one<{ is_operator: number }>('SELECT is_operator FROM workspaces WHERE id = ?', [own.id]);
    assert.equal(Number(ws!.is_operator), 0, 'only the bootstrap workspace is the operator workspace');
    const row = await fx.core.db.one<{ used_by: string }>('SELECT used_by FROM invitations WHERE id = ?', [inv.id]);
    assert.equal(row!.used_by, body.user.id, 'the invitation is spent by this account');
  });

  test('an invitation matches the address in NFC, lower-case form', async () => {
    const opWs = owner.workspaces[0]!.id;
    const inv = await invite(fx.core, opWs, 'Zo\u00eb@Example.com', 'member'); // composed ë
    const { body } = await signUp(app, { email: '  ZOE\u0308@EXAMPLE.COM ', invitationToken: inv.token }); // decomposed Ë
    assert.equal(body.user.email, 'zo\u00eb@example.com');
    assert.equal(body.user.name, 'zo\u00eb');
    assert.equal(body.workspaces.find((w) => w.id === opWs)?.role, 'member');
  });

  test('unknown, malformed, expired, revoked, used and other-address tokens all get the same 403, byte for byte', async () => {
    const opWs = owner.workspaces[0]!.id;
    const password = 'correct horse battery';
    const expired = await invite(fx.core, opWs, 'exp@example.com', 'member');
    fx.clock.advance(INVITATION_TTL_MS + 1000);
    const revoked = await invite(fx.core, opWs, 'rev@example.com', 'member');
    await revokeInvitation({ db: fx.core.db, clock: fx.clock, tokenKey: fx.core.auth.tokenKey, appOrigin: 'http://x' }, opWs, { userId: null, role: 'owner' }, revoked.id);
    const used = await invite(fx.core, opWs, 'used@example.com', 'member');
    await signUp(app, { email: 'used@example.com', invitationToken: used.token });
    const mine = await invite(fx.core, opWs, 'carol@example.com', 'admin');

    const before = await userCount(fx.core);
    const cases: Array<[string, Record<string, string>]> = [
      ['unknown', { email: 'who@example.com', invitationToken: issueToken('invitation') }],
      ['malformed', { email: 'who@example.com', invitationToken: 'svc_inv_not-a-real-token' }],
      ['expired', { email: 'exp@example.com', invitationToken: expired.token }],
      ['revoked', { email: 'rev@example.com', invitationToken: revoked.token }],
      ['already used', { email: 'used@example.com', invitationToken: used.token }],
      ['other address', { email: 'mallory@example.com', invitationToken: mine.token }],
    ];
    const texts = new Map<string, string>();
    for (const [label, body] of cases) {
      const res = await register(app, { ...body, password });
      assert.equal(res.status, 403, label);
      assert.ok(res.headers.get('x-request-id'), 'the request id stays in the header');
      texts.set(label, await res.text());
    }
    const distinct = new Set(texts.values());
    assert.equal(distinct.size, 1, [...texts].map(([k, v]) => `${k}: ${v}`).join('\n'));
    assert.equal(JSON.parse([...distinct][0]!).error.code, 'invalid_invitation');
    assert.equal(await userCount(fx.core), before, 'no account created');
    // The other-address attempt did not spend Carol's invitation.
    const { body } = await signUp(app, { email: 'carol@example.com', invitationToken: mine.token });
    assert.equal(body.workspaces.find((w) => w.id === opWs)?.role, 'admin');
  });

  test('an address already registered is 409 email_taken, and the invitation stays unspent', async () => {
    const opWs = owner.workspaces[0]!.id;
    const dave = await signUp(app, { email: 'dave@example.com', invitationToken: (await invite(fx.core, opWs, 'dave@example.com', 'member')).token });
    await signUp(app, { email: 'erin@example.com', invitationToken: (await invite(fx.core, opWs, 'erin@example.com', 'member')).token });
    // A valid invitation to Erin's address from a workspace she is not in yet.
    const davesOwn = dave.body.workspaces.find((w) => w.role === 'owner')!.id;
    const second = await invite(fx.core, davesOwn, 'ERIN@example.com', 'viewer');
    const before = await userCount(fx.core);
    const res = await register(app, { email: 'Erin@Example.com', password: 'another password', invitationToken: second.token });
    assert.equal(res.status, 409);
    assert.equal((await errorOf(res)).code, 'email_taken');
    assert.equal(await userCount(fx.core), before);
    const row = await fx.core.db.one<{ used_at: string | null }>('SELECT used_at FROM invitations WHERE id = ?', [second.id]);
    assert.equal(row!.used_at, null, 'the transaction rolled back: the invitation is not spent');
  });
});

describe('registration, open mode', () => {
  let fx: Fixture;
  let app: App;
  beforeAll(async () => {
    fx = await testCore({ env: { SERVICE_REGISTRATION_MODE: 'open' } });
    app = createApp(fx.core, fx.services);
  });
  afterAll(() => fx.cleanup());

  test('anyone may register; each account owns a workspace of its own, only the first is the operator one', async () => {
    const first = await signUp(app, { email: 'one@example.com' });
    const second = await signUp(app, { email: 'two@example.com', name: 'Two' });
    assert.equal(second.body.workspaces.length, 1);
    assert.equal(second.body.workspaces[0]!.role, 'owner');
    assert.notEqual(second.body.workspaces[0]!.id, first.body.workspaces[0]!.id);
    const ops = await fx.core.db.all<{ id: string }>('SELECT id FROM workspaces WHERE is_operator = 1');
    assert.deepEqual(ops.map((r) => r.id), [first.body.workspaces[0]!.id]);
  });

  test('a bad token is still refused in open mode (the caller asked to join a workspace)', async () => {
    const res = await register(app, { email: 'three@example.com', password: 'correct horse battery', invitationToken: issueToken('invitation') });
    assert.equal(res.status, 403);
    assert.equal((await errorOf(res)).code, 'invalid_invitation');
  });

  test('the same address twice, in another case, is 409 email_taken', async () => {
    const res = await register(app, { email: 'ONE@example.com', password: 'correct horse battery' });
    assert.equal(res.status, 409);
    assert.equal((await errorOf(res)).code, 'email_taken');
  });
});

describe('registration, misconfigured mode', () => {
  for (const mode of ['closed', 'invite-only', 'OPEN']) {
    test(`SERVICE_REGISTRATION_MODE=${mode} stops registration with 500 registration_misconfigured, no fallback`, async () => {
      const fx = await testCore({ env: { SERVICE_REGISTRATION_MODE: mode } });
      try {
        const app = createApp(fx.core, fx.services);
        // Even the bootstrap registration on an empty store is refused: no default mode applies.
        const res = await register(app, { email: 'ana@example.com', password: 'correct horse battery' });
        assert.equal(res.status, 500);
        const err = await errorOf(res);
        assert.equal(err.code, 'registration_misconfigured');
        assert.match(err.message, /SERVICE_REGISTRATION_MODE/);
        assert.equal(await userCount(fx.core), 0);
        assert.equal(res.headers.getSetCookie().length, 0);
      } finally {
        await fx.cleanup();
      }
    });
  }
});

describe('registration input', () => {
  let fx: Fixture;
  let app: App;
  beforeAll(async () => {
    fx = await testCore({ env: { SERVICE_REGISTRATION_MODE: 'open' } });
    app = createApp(fx.core, fx.services);
  });
  afterAll(() => fx.cleanup());

  const ok = { email: 'ana@example.com', password: 'correct horse battery' };
  const cases: Array<[string, unknown, number, RegExp?]> = [
    ['email over 320 characters', { ...ok, email: `${'a'.repeat(64)}@${'b'.repeat(260)}.com` }, 400, /email/],
    ['email that is not an address', { ...ok, email: 'not-an-email' }, 400, /email/],
    ['email as a number', { ...ok, email: 42 }, 400, /email/],
    ['email missing', { password: ok.password }, 400, /email/],
    ['password under 8 characters', { ...ok, password: 'short' }, 400, /password/],
    ['password over 1024 characters', { ...ok, password: 'p'.repeat(1025) }, 400, /password/],
    ['password as an array', { ...ok, password: ['correct horse battery'] }, 400, /password/],
    ['name over 200 characters', { ...ok, name: 'n'.repeat(201) }, 400, /name/],
    ['name with a control character', { ...ok, name: 'Ana\u0000' }, 400, /name/],
    ['name that is blank', { ...ok, name: '   ' }, 400, /name/],
    ['invitationToken as an object', { ...ok, invitationToken: { $ne: null } }, 400, /invitationToken/],
    ['an extra role field', { ...ok, role: 'owner' }, 400, /role/],
    ['an extra workspaceId field', { ...ok, workspaceId: 'ws_x' }, 400, /workspaceId/],
    ['a __proto__ key', `{"email":"ana@example.com","password":"correct horse battery","__proto__":{"role":"owner"}}`, 400, /__proto__/],
    ['duplicate keys sneaking a role in', `{"email":"ana@example.com","role":"viewer","password":"correct horse battery","role":"owner"}`, 400, /role/],
    ['an array body', [], 400],
    ['invalid JSON', '{"email":', 400, /JSON/],
  ];
  for (const [label, body, status, message] of cases) {
    test(`register: ${label} → ${status}`, async () => {
      const res = await register(app, body);
      assert.equal(res.status, status);
      const err = await errorOf(res);
      assert.ok(err.message.length > 0);
      if (message) assert.match(`${err.field ?? ''} ${err.message}`, message);
      assert.equal(await userCount(fx.core), 0, 'a refused request creates no account');
    });
  }

  test('register: a form-encoded body is 415 (cross-site forms cannot send JSON)', async () => {
    const res = await app.request('/api/auth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=ana%40example.com&password=correct+horse+battery',
    });
    assert.equal(res.status, 415);
  });

  test('login: wrong types and extra keys are 400, not 401 or 500', async () => {
    for (const body of [{ email: 1, password: 'x' }, { email: 'a@example.com' }, { email: 'a@example.com', password: 'x', remember: true }, { email: 'e'.repeat(321), password: 'x' }]) {
      const res = await app.request('/api/auth/login', jsonInit('POST', body));
      assert.equal(res.status, 400, JSON.stringify(body));
    }
  });

  test('control: the same valid body is accepted (the cases above fail for their own reason)', async () => {
    const { body } = await signUp(app, ok);
    assert.equal(body.user.email, 'ana@example.com');
    assert.equal(await userCount(fx.core), 1);
  });
});
