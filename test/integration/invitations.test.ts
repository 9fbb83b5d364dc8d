// Invitations over HTTP (app.request against the real app on a real store): token once, masked
// lists, role rules, the seven-day window on a manual clock, resend, revoke, CSRF.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import { register } from '../../core/accounts/register.ts';
import { AppError } from '../../core/kernel/errors.ts';
import { createApp, type App } from '../../daemon/app.ts';
import { accountsDeps } from '../../core/services.ts';
import type { Dialect } from '../../core/store/types.ts';
import { testCore, type Fixture } from './http-fixture.ts';
import { account, call, memberOf, signIn, type Caller } from './invitation-helpers.ts';

const DAY = 24 * 60 * 60 * 1000;
const SEVEN_DAYS = 7 * DAY;

/** Sign-up with an invitation token, through the same function POST /api/auth/register uses. */
async function signUp(f: Fixture, email: string, invitationToken: string): Promise<'ok' | string> {
  try {
    await register(accountsDeps(f.core), { email, password: 'a long enough password', name: 'Invitee', invitationToken });
    return 'ok';
  } catch (err) {
    if (err instanceof AppError) return `${err.status} ${err.code}`;
    throw err;
  }
}

for (const store of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`invitations API (${store})`, () => {
    let f: Fixture;
    let app: App;
    let owner: Caller;
    let admin: Caller;
    let member: Caller;
    let viewer: Caller;
    let outsider: Caller;
    let ws: string;

    beforeAll(async () => {
      f = await testCore({ store });
      app = createApp(f.core, f.services);
      owner = await account(f.core, 'owner@example.com');
      ws = owner.ownWorkspaceId;
      admin = await memberOf(f.core, ws, 'admin@example.com', 'admin');
      member = await memberOf(f.core, ws, 'member@example.com', 'member');
      viewer = await memberOf(f.core, ws, 'viewer@example.com', 'viewer');
      outsider = await account(f.core, 'outsider@example.com');
    });
    afterAll(() => f?.cleanup());
    // Tests move the clock by days; sessions last 14, so every test starts signed in afresh.
    beforeEach(async () => {
      for (const c of [owner, admin, member, viewer, outsider]) await signIn(f.core, c);
    });

    const create = (as: Caller, email: string, role: string, extra: { csrf?: boolean | string } = {}) =>
      call(app, 'POST', '/api/app/invitations', { as, workspaceId: ws, body: { email, role }, ...extra });
    const list = async (as: Caller = owner) => {
      const r = await call(app, 'GET', '/api/app/invitations', { as, workspaceId: ws });
      assert.equal(r.status, 200, r.text);
      return r;
    };
    const find = async (id: string) => ((await list()).json.data as Array<Record<string, unknown>>).find((i) => i.id === id)!;

    test('create answers 201 with id first and the token once; lists show only a preview', async () => {
      const r = await create(owner, 'New.Person@Example.com', 'member');
      assert.equal(r.status, 201, r.text);
      assert.equal(Object.keys(r.json)[0], 'id');
      assert.match(r.json.id, /^inv_[0-9a-z]{20}$/);
      assert.equal(r.json.email, 'new.person@example.com');
      assert.equal(r.json.role, 'member');
      assert.equal(r.json.status, 'pending');
      assert.equal(r.json.deliveryStatus, 'not_sent', 'no relay configured');
      assert.match(r.json.token, /^svc_inv_[0-9A-Za-z]{36}$/);
      assert.equal(r.json.signUpUrl, `${f.core.config.SERVICE_APP_ORIGIN}/sign-up?invite=${r.json.token}`);
      assert.equal(Date.parse(r.json.expiresAt) - Date.parse(r.json.createdAt), SEVEN_DAYS);

      const l = await list();
      assert.ok(!l.text.includes(r.json.token), 'the token never appears in a list');
      assert.ok(!l.text.includes(r.json.token.slice(8, 30)), 'not even its random middle');
      const row = (l.json.data as Array<Record<string, unknown>>).find((i) => i.id === r.json.id)!;
      assert.equal(row.token, undefined);
      assert.equal(row.signUpUrl, undefined);
      assert.equal(row.tokenPreview, `svc_inv_…${r.json.token.slice(-4)}`);
      assert.equal(row.status, 'pending');
      assert.equal(row.expiresAt, r.json.expiresAt);
      assert.equal(row.deliveryStatus, 'not_sent');
    });

    test('admins invite up to admin; only an owner invites an owner', async () => {
      assert.equal((await create(admin, 'a1@example.com', 'admin')).status, 201);
      const r = await create(admin, 'a2@example.com', 'owner');
      assert.equal(r.status, 403, r.text);
      assert.equal(r.json.error.code, 'owner_invite_forbidden');
      assert.equal((await create(owner, 'a2@example.com', 'owner')).status, 201);
    });

    test('members, viewers and non-members get 403 on every invitation route', async () => {
      const inv = (await create(owner, 'rolecheck@example.com', 'viewer')).json;
      for (const as of [member, viewer]) {
        assert.equal((await create(as, 'x@example.com', 'viewer')).status, 403);
        assert.equal((await call(app, 'GET', '/api/app/invitations', { as, workspaceId: ws })).status, 403);
        assert.equal((await call(app, 'POST', `/api/app/invitations/${inv.id}/resend`, { as, workspaceId: ws })).status, 403);
        assert.equal((await call(app, 'DELETE', `/api/app/invitations/${inv.id}`, { as, workspaceId: ws })).status, 403);
      }
      const r = await create(outsider, 'x@example.com', 'viewer');
      assert.equal(r.status, 403);
      assert.equal(r.json.error.code, 'not_a_member');
      // In their own workspace the outsider is owner, but another workspace's invitation is not there.
      const other = await call(app, 'DELETE', `/api/app/invitations/${inv.id}`, { as: outsider });
      assert.equal(other.status, 404, other.text);
      assert.equal((await find(inv.id)).status, 'pending');
      assert.equal((await call(app, 'GET', '/api/app/invitations')).status, 401, 'anonymous');
    });

    test('an admin cannot resend or revoke an owner invitation', async () => {
      const inv = (await create(owner, 'owner2@example.com', 'owner')).json;
      assert.equal((await call(app, 'POST', `/api/app/invitations/${inv.id}/resend`, { as: admin, workspaceId: ws })).status, 403);
      assert.equal((await call(app, 'DELETE', `/api/app/invitations/${inv.id}`, { as: admin, workspaceId: ws })).status, 403);
      assert.equal((await find(inv.id)).status, 'pending');
    });

    test('bad input is a 400 naming the problem, and creates nothing', async () => {
      const before = (await list()).json.data.length;
      const cases: Array<[unknown, string]> = [
        [{ email: 'not-an-address', role: 'member' }, 'invalid_email'],
        [{ email: 'ok@example.com', role: 'superuser' }, 'invalid_role'],
        [{ email: 'ok@example.com', role: 'member', workspaceId: ws }, 'invalid_request'],
        [{ email: 'ok@example.com' }, 'invalid_request'],
        [{ email: 42, role: 'member' }, 'invalid_request'],
        [{ email: `${'a'.repeat(320)}@example.com`, role: 'member' }, 'invalid_request'],
        ['{"email":"ok@example.com","role":"member","__proto__":{"role":"owner"}}', 'invalid_request'],
      ];
      for (const [body, code] of cases) {
        const r = await call(app, 'POST', '/api/app/invitations', { as: admin, workspaceId: ws, body });
        assert.equal(r.status, 400, `${JSON.stringify(body)} → ${r.text}`);
        assert.equal(r.json.error.code, code, r.text);
      }
      assert.equal((await list()).json.data.length, before);
    });

    test('an existing member cannot be invited again (409)', async () => {
      const r = await create(owner, 'member@example.com', 'admin');
      assert.equal(r.status, 409, r.text);
    });

    test('state-changing routes need the CSRF header', async () => {
      const before = (await list()).json.data.length;
      for (const csrf of [false, 'wrong', member.csrf] as const) {
        const r = await create(owner, 'csrf@example.com', 'member', { csrf });
        assert.equal(r.status, 403, r.text);
        assert.equal(r.json.error.code, 'csrf_failed');
      }
      assert.equal((await list()).json.data.length, before, 'nothing created');
      const inv = (await create(owner, 'csrf2@example.com', 'member')).json;
      assert.equal((await call(app, 'POST', `/api/app/invitations/${inv.id}/resend`, { as: owner, workspaceId: ws, csrf: false })).status, 403);
      assert.equal((await call(app, 'DELETE', `/api/app/invitations/${inv.id}`, { as: owner, workspaceId: ws, csrf: false })).status, 403);
      assert.equal((await find(inv.id)).status, 'pending');
      assert.equal(await signUp(f, 'csrf2@example.com', inv.token), 'ok', 'the token was not replaced');
    });

    test('expiry: valid 1 s before seven days, expired at seven days and 1 s after', async () => {
      const a = (await create(owner, 'early@example.com', 'viewer')).json;
      const b = (await create(owner, 'exact@example.com', 'viewer')).json;
      const c = (await create(owner, 'late@example.com', 'viewer')).json;
      const start = f.clock.now();
      f.clock.set(start + SEVEN_DAYS - 1000);
      await signIn(f.core, owner);
      assert.equal((await find(b.id)).status, 'pending');
      assert.equal(await signUp(f, 'early@example.com', a.token), 'ok');
      f.clock.set(start + SEVEN_DAYS);
      assert.equal((await find(b.id)).status, 'expired');
      assert.equal(await signUp(f, 'exact@example.com', b.token), '403 invalid_invitation');
      f.clock.set(start + SEVEN_DAYS + 1000);
      assert.equal((await find(c.id)).status, 'expired');
      assert.equal(await signUp(f, 'late@example.com', c.token), '403 invalid_invitation');
      assert.equal((await find(a.id)).status, 'used');
    });

    test('resend restarts the seven days and invalidates the old token', async () => {
      const first = (await create(owner, 'resend@example.com', 'member')).json;
      f.clock.advance(6 * DAY);
      const r = await call(app, 'POST', `/api/app/invitations/${first.id}/resend`, { as: admin, workspaceId: ws });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.id, first.id);
      assert.notEqual(r.json.token, first.token);
      assert.equal(r.json.signUpUrl, `${f.core.config.SERVICE_APP_ORIGIN}/sign-up?invite=${r.json.token}`);
      assert.equal(Date.parse(r.json.expiresAt), f.clock.now() + SEVEN_DAYS);
      const row = await find(first.id);
      assert.equal(row.tokenPreview, `svc_inv_…${r.json.token.slice(-4)}`);
      assert.ok(!(await list()).text.includes(r.json.token));

      assert.equal(await signUp(f, 'resend@example.com', first.token), '403 invalid_invitation', 'old token is dead');
      f.clock.advance(SEVEN_DAYS - 1000); // 13 days after creation, 1 s before the new expiry
      await signIn(f.core, owner);
      assert.equal((await find(first.id)).status, 'pending');
      assert.equal(await signUp(f, 'resend@example.com', r.json.token), 'ok');
      assert.equal((await find(first.id)).status, 'used');
    });

    test('an expired invitation can be resent and becomes pending again', async () => {
      const inv = (await create(owner, 'expired-resend@example.com', 'member')).json;
      f.clock.advance(SEVEN_DAYS + 1);
      await signIn(f.core, owner);
      assert.equal((await find(inv.id)).status, 'expired');
      const r = await call(app, 'POST', `/api/app/invitations/${inv.id}/resend`, { as: owner, workspaceId: ws });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.status, 'pending');
    });

    test('revoke; revoked and used invitations cannot be resent or revoked (409)', async () => {
      const inv = (await create(owner, 'revoke@example.com', 'member')).json;
      const r = await call(app, 'DELETE', `/api/app/invitations/${inv.id}`, { as: admin, workspaceId: ws });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.status, 'revoked');
      assert.equal(r.json.token, undefined);
      assert.equal((await find(inv.id)).status, 'revoked');
      assert.equal(await signUp(f, 'revoke@example.com', inv.token), '403 invalid_invitation');
      const again = await call(app, 'POST', `/api/app/invitations/${inv.id}/resend`, { as: owner, workspaceId: ws });
      assert.equal(again.status, 409, again.text);
      assert.equal(again.json.error.code, 'invitation_closed');
      assert.equal((await call(app, 'DELETE', `/api/app/invitations/${inv.id}`, { as: owner, workspaceId: ws })).status, 409);

      const used = (await create(owner, 'used@example.com', 'member')).json;
      assert.equal(await signUp(f, 'used@example.com', used.token), 'ok');
      assert.equal((await call(app, 'POST', `/api/app/invitations/${used.id}/resend`, { as: owner, workspaceId: ws })).status, 409);
      assert.equal((await call(app, 'DELETE', `/api/app/invitations/${used.id}`, { as: owner, workspaceId: ws })).status, 409);
      assert.equal((await find(used.id)).status, 'used');

      assert.equal((await call(app, 'POST', '/api/app/invitations/inv_00000000000000000000/resend', { as: owner, workspaceId: ws })).status, 404);
    });

    test('a new invitation for the same address replaces the pending one', async () => {
      const a = (await create(owner, 'twice@example.com', 'viewer')).json;
      const b = (await create(owner, 'twice@example.com', 'member')).json;
      assert.equal((await find(a.id)).status, 'revoked');
      assert.equal(await signUp(f, 'twice@example.com', a.token), '403 invalid_invitation');
      assert.equal(await signUp(f, 'twice@example.com', b.token), 'ok');
    });
  });
}
