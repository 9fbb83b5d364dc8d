// The caller's own account through /api/auth (issue 14, issue 17 item 3): password change (the other
// sessions end), sign out everywhere, the active workspace remembered on the session (and set to the
// inviting workspace after a sign-up by invitation); and the provider-account connection test.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createApp, type App } from '../../daemon/app.ts';
import { fakeOpenAi, refusingUrl, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { errorOf, invite, jsonInit, sessionFrom, setCookies, signUp, type Session } from './accounts-helpers.ts';
import { testCore, type Fixture } from './http-fixture.ts';

const PASSWORD = 'correct horse battery';

describe('account routes', () => {
  let fx: Fixture;
  let app: App;
  let upstream: FakeUpstream;
  beforeAll(async () => {
    fx = await testCore({ env: { SERVICE_REGISTRATION_MODE: 'open', SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1' } });
    app = createApp(fx.core, fx.services);
    upstream = await fakeOpenAi();
  });
  afterAll(async () => {
    await upstream.close();
    await fx.cleanup();
  });

  const login = async (email: string, password: string) => app.request('/api/auth/login', jsonInit('POST', { email, password }));
  const alive = async (s: Session) => (await app.request('/api/auth/session', { headers: s.headers({ csrf: false }) })).status === 200;

  test('password change: checks the current password, ends the other sessions, keeps this one', async () => {
    const { body, session: first } = await signUp(app, { email: 'pat@example.com', password: PASSWORD });
    const second = sessionFrom(await login('pat@example.com', PASSWORD), body.user.id);
    const change = (s: Session, b: unknown) => app.request('/api/auth/password', jsonInit('POST', b, s.headers()));

    const wrong = await change(first, { currentPassword: 'not it at all', newPassword: 'a new good password' });
    assert.equal(wrong.status, 400);
    assert.deepEqual(await errorOf(wrong), { code: 'wrong_password', message: 'The current password is not correct.', field: 'currentPassword', requestId: wrong.headers.get('x-request-id') });
    const weak = await change(first, { currentPassword: PASSWORD, newPassword: 'short' });
    assert.equal(weak.status, 400);
    assert.equal((await errorOf(weak)).field, 'newPassword');
    assert.ok((await alive(second)) && (await alive(first)), 'a refused change ends nothing');

    const ok = await change(first, { currentPassword: PASSWORD, newPassword: 'a new good password' });
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { sessionsEnded: 1 });
    assert.equal(await alive(first), true, 'the session that changed it stays');
    assert.equal(await alive(second), false, 'every other session ended');
    assert.equal((await login('pat@example.com', PASSWORD)).status, 401);
    assert.equal((await login('pat@example.com', 'a new good password')).status, 200);
  });

  test('sign out everywhere ends every session of the user (not other users\') and clears the cookies', async () => {
    const { body, session: first } = await signUp(app, { email: 'lou@example.com', password: PASSWORD });
    const second = sessionFrom(await login('lou@example.com', PASSWORD), body.user.id);
    const other = (await signUp(app, { email: 'kim@example.com', password: PASSWORD })).session;
    const res = await app.request('/api/auth/logout-all', { method: 'POST', headers: first.headers() });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { sessionsEnded: 2 });
    assert.equal(setCookies(res).get('service_session')?.value, '');
    assert.equal(await alive(first), false);
    assert.equal(await alive(second), false);
    assert.equal(await alive(other), true);
  });

  test('after a sign-up by invitation the session acts in the inviting workspace; PATCH /api/auth/session switches', async () => {
    const owner = await signUp(app, { email: 'own@example.com', password: PASSWORD });
    const teamWs = owner.body.workspaces[0]!.id;
    const inv = await invite(fx.core, teamWs, 'new@example.com', 'member', owner.body.user.id);
    const joined = await signUp(app, { email: 'new@example.com', invitationToken: inv.token });
    const ownWs = joined.body.workspaces.find((w) => w.id !== teamWs)!.id;
    const read = async () => ((await (await app.request('/api/auth/session', { headers: joined.session.headers({ csrf: false }) })).json()) as { activeWorkspaceId: string }).activeWorkspaceId;
    assert.equal(await read(), teamWs);
    // A key made without x-workspace-id is for the team's workspace, where the models are.
    const key = await app.request('/api/app/keys', jsonInit('POST', { name: 'k' }, joined.session.headers()));
    assert.equal(key.status, 201);
    assert.equal(key.headers.get('x-workspace-id'), teamWs, 'the answer names the workspace it acted in');
    const made = (await key.json()) as { workspaceId: string; workspaceName: string };
    assert.equal(made.workspaceId, teamWs);
    assert.equal(made.workspaceName, owner.body.workspaces[0]!.name);
    const keys = (await (await app.request('/api/app/keys', { headers: joined.session.headers({ csrf: false }) })).json()) as { data: Array<{ workspaceName: string }> };
    assert.deepEqual(keys.data.map((k) => k.workspaceName), [owner.body.workspaces[0]!.name], 'the listing names the workspace too');

    const sw = (workspaceId: string) => app.request('/api/auth/session', jsonInit('PATCH', { workspaceId }, joined.session.headers()));
    const res = await sw(ownWs);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { activeWorkspace: { id: ownWs, name: joined.body.workspaces.find((w) => w.id === ownWs)!.name, role: 'owner' } });
    assert.equal(await read(), ownWs);
    const outsider = await signUp(app, { email: 'x@example.com', password: PASSWORD });
    const refused = await sw(outsider.body.workspaces[0]!.id);
    assert.equal(refused.status, 403);
    assert.equal((await errorOf(refused)).code, 'not_a_member');
    assert.equal(await read(), ownWs, 'unchanged');
    // Removed from the remembered workspace: the session falls back to the user's own.
    await sw(teamWs);
    await fx.core.db.run('DELETE FROM memberships WHERE workspace_id = ? AND user_id = ?', [teamWs, joined.body.user.id]);
    assert.equal(await read(), ownWs);
    const members = await app.request('/api/app/members', { headers: joined.session.headers({ csrf: false }) });
    assert.equal(members.status, 200);
  });

  test('provider-account connection test: the models, or the failure named', async () => {
    const { session } = await signUp(app, { email: 'ops@example.com', password: PASSWORD });
    const create = async (baseUrl: string, slug: string) =>
      ((await (await app.request('/api/app/provider-accounts', jsonInit('POST', { provider: 'openai-compatible', name: slug, slug, baseUrl }, session.headers()))).json()) as { id: string }).id;
    upstream.script({ models: ['alpha', 'beta'] });
    const good = await app.request(`/api/app/provider-accounts/${await create(upstream.url, 'good')}/test`, { method: 'POST', headers: session.headers() });
    assert.equal(good.status, 200);
    const g = (await good.json()) as { ok: boolean; models: string[]; latencyMs: number };
    assert.equal(g.ok, true);
    assert.deepEqual(g.models, ['alpha', 'beta']);
    assert.ok(g.latencyMs >= 0);

    const downUrl = await refusingUrl();
    const down = await app.request(`/api/app/provider-accounts/${await create(downUrl, 'down')}/test`, { method: 'POST', headers: session.headers() });
    assert.equal(down.status, 200);
    const d = (await down.json()) as { ok: boolean; error: { code: string; message: string } };
    assert.equal(d.ok, false);
    assert.equal(d.error.code, 'unreachable');
    assert.ok(d.error.message.includes(downUrl) && /ECONNREFUSED/.test(d.error.message), d.error.message);

    assert.equal((await app.request('/api/app/provider-accounts/pa_nope/test', { method: 'POST', headers: session.headers() })).status, 404);
  });
});
