// Workspaces and members through /api/app: listing, role changes (admins never touch owners, the
// last owner stays, viewers and members may not manage), removal, leaving, and the workspace header.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createApp, type App } from '../../daemon/app.ts';
import { errorOf, invite, jsonInit, signUp, type Session } from './accounts-helpers.ts';
import { testCore, type Fixture } from './http-fixture.ts';

interface MemberRow {
  userId: string;
  email: string;
  name: string;
  role: string;
  joinedAt: string;
}

describe('workspaces and members', () => {
  let fx: Fixture;
  let app: App;
  let ws: string; // the owner's workspace, which everyone below joins
  const s: Record<'owner' | 'admin' | 'member' | 'viewer' | 'outsider', Session> = {} as never;
  const ownWs: Record<string, string> = {};

  const members = async (who: Session, workspace = ws) => {
    const res = await app.request('/api/app/members', { headers: who.headers({ csrf: false, workspace }) });
    assert.equal(res.status, 200);
    return ((await res.json()) as { data: MemberRow[] }).data;
  };
  const roleOf = async (userId: string) => (await members(s.owner)).find((m) => m.userId === userId)?.role;
  const patch = (who: Session, userId: string, body: unknown, opts: { csrf?: boolean } = {}) =>
    app.request(`/api/app/members/${userId}`, jsonInit('PATCH', body, who.headers({ workspace: ws, ...opts })));
  const remove = (who: Session, userId: string, opts: { csrf?: boolean } = {}) =>
    app.request(`/api/app/members/${userId}`, { method: 'DELETE', headers: who.headers({ workspace: ws, ...opts }) });

  beforeAll(async () => {
    fx = await testCore();
    app = createApp(fx.core, fx.services);
    const owner = await signUp(app, { email: 'owner@example.com', name: 'Olga' });
    s.owner = owner.session;
    ws = owner.body.workspaces[0]!.id;
    for (const role of ['admin', 'member', 'viewer'] as const) {
      fx.clock.advance(1000); // distinct join times: the list is in join order
      const inv = await invite(fx.core, ws, `${role}@example.com`, role, owner.body.user.id);
      const up = await signUp(app, { email: `${role}@example.com`, invitationToken: inv.token });
      s[role] = up.session;
      ownWs[role] = up.body.workspaces.find((w) => w.id !== ws)!.id;
    }
    const outsider = await signUp(app, { email: 'out@example.com', invitationToken: (await invite(fx.core, ownWs.admin!, 'out@example.com', 'member')).token });
    s.outsider = outsider.session;
  });
  afterAll(() => fx.cleanup());

  test('GET /api/app/workspaces lists the caller\'s workspaces with the role in each', async () => {
    const res = await app.request('/api/app/workspaces', { headers: s.viewer.headers({ csrf: false }) });
    assert.equal(res.status, 200);
    const { data } = (await res.json()) as { data: Array<{ id: string; role: string; own: boolean; operator: boolean }> };
    assert.deepEqual(
      data.map((w) => [w.id, w.role, w.own, w.operator]).sort(),
      [[ws, 'viewer', false, true], [ownWs.viewer, 'owner', true, false]].sort(),
    );
  });

  test('any role lists the members of the active workspace: after sign-up by invitation the inviting one, then the one switched to', async () => {
    const team = [
      ['owner@example.com', 'owner'],
      ['admin@example.com', 'admin'],
      ['member@example.com', 'member'],
      ['viewer@example.com', 'viewer'],
    ];
    assert.deepEqual((await members(s.viewer)).map((m) => [m.email, m.role]), team);
    const list = async () => ((await (await app.request('/api/app/members', { headers: s.viewer.headers({ csrf: false }) })).json()) as { data: MemberRow[] }).data.map((m) => [m.email, m.role]);
    assert.deepEqual(await list(), team, 'without the header: the inviting workspace (DESIGN.md)');
    const sw = await app.request('/api/auth/session', { method: 'PATCH', headers: { ...s.viewer.headers(), 'content-type': 'application/json' }, body: JSON.stringify({ workspaceId: ownWs.viewer }) });
    assert.equal(sw.status, 200, await sw.clone().text());
    assert.deepEqual(await list(), [['viewer@example.com', 'owner']], 'switched to their own');
    const back = await app.request('/api/auth/session', { method: 'PATCH', headers: { ...s.viewer.headers(), 'content-type': 'application/json' }, body: JSON.stringify({ workspaceId: ws }) });
    assert.equal(back.status, 200);
    assert.deepEqual(await list(), team);
  });

  test('x-workspace-id of a workspace the caller is not in is 403, read or write', async () => {
    const read = await app.request('/api/app/members', { headers: s.outsider.headers({ csrf: false, workspace: ws }) });
    assert.equal(read.status, 403);
    assert.equal((await errorOf(read)).code, 'not_a_member');
    const write = await patch(s.outsider, s.viewer.userId, { role: 'member' });
    assert.equal(write.status, 403);
    const unknown = await app.request('/api/app/members', { headers: s.owner.headers({ csrf: false, workspace: 'ws_doesnotexist' }) });
    assert.equal(unknown.status, 403);
    assert.equal(await roleOf(s.viewer.userId), 'viewer');
  });

  test('viewers and members may not change roles or remove others', async () => {
    for (const who of [s.viewer, s.member]) {
      const res = await patch(who, s.viewer.userId, { role: 'admin' });
      assert.equal(res.status, 403);
      assert.equal((await remove(who, s.admin.userId)).status, 403);
    }
    assert.equal(await roleOf(s.viewer.userId), 'viewer');
    assert.equal(await roleOf(s.admin.userId), 'admin');
  });

  test('state-changing member routes need the CSRF header; the same call with it works', async () => {
    for (const res of [await patch(s.owner, s.viewer.userId, { role: 'member' }, { csrf: false }), await remove(s.owner, s.viewer.userId, { csrf: false })]) {
      assert.equal(res.status, 403);
      assert.equal((await errorOf(res)).code, 'csrf_failed');
    }
    assert.equal(await roleOf(s.viewer.userId), 'viewer');
    const ok = await patch(s.owner, s.viewer.userId, { role: 'member' });
    assert.equal(ok.status, 200);
    assert.equal(((await ok.json()) as MemberRow).role, 'member');
    assert.equal((await patch(s.owner, s.viewer.userId, { role: 'viewer' })).status, 200);
  });

  test('an admin manages members and admins but never touches an owner or grants owner', async () => {
    const up = await patch(s.admin, s.viewer.userId, { role: 'member' });
    assert.equal(up.status, 200);
    assert.equal(await roleOf(s.viewer.userId), 'member');
    const cases = [await patch(s.admin, s.owner.userId, { role: 'viewer' }), await patch(s.admin, s.member.userId, { role: 'owner' }), await remove(s.admin, s.owner.userId)];
    for (const res of cases) assert.equal(res.status, 403);
    assert.equal(await roleOf(s.owner.userId), 'owner');
    assert.equal(await roleOf(s.member.userId), 'member');
    assert.equal((await patch(s.admin, s.viewer.userId, { role: 'viewer' })).status, 200);
  });

  test('bad role bodies are 400; an unknown member is 404', async () => {
    for (const body of [{ role: 'superuser' }, { role: 'admin', userId: s.owner.userId }, {}, { role: ['admin'] }]) {
      const res = await patch(s.owner, s.viewer.userId, body);
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    assert.equal((await patch(s.owner, 'usr_nobody', { role: 'member' })).status, 404);
    assert.equal((await remove(s.owner, 'usr_nobody')).status, 404);
    // A user who exists but is not in this workspace is not a member here either.
    assert.equal((await patch(s.owner, s.outsider.userId, { role: 'member' })).status, 404);
  });

  test('the last owner can neither be demoted nor leave: 409 last_owner; with a second owner both work', async () => {
    const demote = await patch(s.owner, s.owner.userId, { role: 'admin' });
    assert.equal(demote.status, 409);
    assert.equal((await errorOf(demote)).code, 'last_owner');
    const leave = await remove(s.owner, s.owner.userId);
    assert.equal(leave.status, 409);
    assert.equal(await roleOf(s.owner.userId), 'owner');

    assert.equal((await patch(s.owner, s.admin.userId, { role: 'owner' })).status, 200, 'an owner grants owner');
    assert.equal((await patch(s.owner, s.owner.userId, { role: 'admin' })).status, 200, 'no longer the last owner');
    // The new owner restores the old one, who then hands the role back: owners manage owners.
    assert.equal((await patch(s.admin, s.owner.userId, { role: 'owner' })).status, 200);
    assert.equal((await patch(s.owner, s.admin.userId, { role: 'admin' })).status, 200);
  });

  test('an admin removes a member; anyone may leave; a removed user loses access', async () => {
    assert.equal((await remove(s.admin, s.viewer.userId)).status, 204);
    const gone = await app.request('/api/app/members', { headers: s.viewer.headers({ csrf: false, workspace: ws }) });
    assert.equal(gone.status, 403);
    assert.equal((await remove(s.member, s.member.userId)).status, 204, 'a member leaves');
    assert.deepEqual((await members(s.owner)).map((m) => m.role).sort(), ['admin', 'owner']);
    // Leaving a workspace does not touch the user's own workspace.
    const own = await app.request('/api/app/members', { headers: s.member.headers({ csrf: false }) });
    assert.equal(own.status, 200);
  });
});
