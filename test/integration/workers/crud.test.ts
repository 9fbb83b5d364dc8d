// Workers over HTTP: create (ref once), list (previews only), read/patch/delete, rotate, role rules,
// validation of agent, schedule and notifyUrl; the legacy agent webhook token routes.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { startRuns, type RunsEnv } from '../runs/setup.ts';

describe('workers CRUD and roles', () => {
  let e: RunsEnv;
  let agent: string;
  beforeAll(async () => {
    e = await startRuns();
    agent = await e.agent(e.g.people.member);
  });
  afterAll(() => e.close());
  const mk = (body: Record<string, unknown> = {}) => e.app(e.g.people.member, 'POST', '/api/app/workers', { name: 'Triage', agentId: agent, inputTemplate: 'Triage: {{body}}', ...body });

  test('create returns the ref once; lists and reads show only its preview', async () => {
    const r = await mk({ schedule: '*/5 * * * *' });
    assert.equal(r.status, 201, r.text);
    assert.match(r.body.id, /^wkr_/);
    assert.match(r.body.token, /^svc_whk_[0-9A-Za-z]{36}$/);
    assert.equal(r.body.webhookRef, r.body.token);
    assert.equal(r.body.webhookRefPreview, `svc_whk_…${r.body.token.slice(-4)}`);
    assert.deepEqual([r.body.schedule, r.body.enabled, r.body.ownerUserId], ['*/5 * * * *', true, e.g.people.member.userId]);
    const list = await e.app(e.g.people.member, 'GET', '/api/app/workers');
    const one = await e.app(e.g.people.member, 'GET', `/api/app/workers/${r.body.id}`);
    for (const text of [list.text, one.text]) assert.ok(!text.includes(r.body.token) && !text.includes(r.body.token.slice(8, 30)), 'ref never shown again');
    assert.ok(list.body.data.some((w: { id: string }) => w.id === r.body.id));
    assert.equal(one.body.webhookRefPreview, r.body.webhookRefPreview);
    assert.equal(one.body.token, undefined);
    // Only a keyed hash is stored.
    const row = await e.g.core.db.one<{ webhook_ref_hash: string }>('SELECT webhook_ref_hash FROM workers WHERE id = ?', [r.body.id]);
    assert.ok(row && row.webhook_ref_hash !== r.body.token && !row.webhook_ref_hash.includes(r.body.token.slice(8)));
  });

  test('inputText is accepted as an alias of inputTemplate', async () => {
    const r = await e.app(e.g.people.member, 'POST', '/api/app/workers', { name: 'A', agentId: agent, inputText: 'x {{body}}' });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.inputTemplate, 'x {{body}}');
  });

  test('validation: agent runnable by the caller, cron schedule, notifyUrl, strict body', async () => {
    const draft = await e.agent(e.g.people.member, {}, { publish: false });
    const othersPrivate = await e.agent(e.g.people.admin);
    for (const [body, status, field] of [
      [{ agentId: draft }, 404, 'agentId'],
      [{ agentId: othersPrivate }, 404, 'agentId'],
      [{ agentId: 'agt_nope' }, 404, 'agentId'],
      [{ schedule: '61 * * * *' }, 400, 'schedule'],
      [{ schedule: 'every minute' }, 400, 'schedule'],
      [{ notifyUrl: 'ftp://example.com/x' }, 400, 'notifyUrl'],
      [{ notifyUrl: 'not a url' }, 400, 'notifyUrl'],
      [{ notifyUrl: 'https://user:pw@example.com/' }, 400, 'notifyUrl'],
      [{ extra: 1 }, 400, undefined],
      [{ inputTemplate: '' }, 400, 'inputTemplate'],
    ] as const) {
      const r = await mk(body);
      assert.equal(r.status, status, `${JSON.stringify(body)}: ${r.text}`);
      if (field) assert.equal(r.body.error.field, field, r.text);
    }
    assert.equal((await mk({ schedule: '@daily', notifyUrl: 'https://hooks.example.com/x' })).status, 201);
  });

  test('roles: viewer cannot create; others see 404; admin+ see and manage all; owner keeps control', async () => {
    const { viewer, admin, owner, outsider, member } = e.g.people;
    const w = (await mk()).body;
    assert.equal((await e.app(viewer, 'POST', '/api/app/workers', { name: 'v', agentId: agent, inputTemplate: 'x' })).status, 403);
    assert.equal((await e.app(viewer, 'GET', `/api/app/workers/${w.id}`)).status, 404);
    assert.ok(!(await e.app(viewer, 'GET', '/api/app/workers')).body.data.some((x: { id: string }) => x.id === w.id));
    assert.equal((await e.app(outsider, 'GET', `/api/app/workers/${w.id}`, undefined, outsider.ownWorkspace)).status, 404);
    assert.equal((await e.app(outsider, 'GET', '/api/app/workers')).status, 403, 'not a member of W');
    for (const p of [admin, owner]) {
      assert.ok((await e.app(p, 'GET', '/api/app/workers')).body.data.some((x: { id: string }) => x.id === w.id));
      const patched = await e.app(p, 'PATCH', `/api/app/workers/${w.id}`, { name: `by ${p === admin ? 'admin' : 'owner'}` });
      assert.equal(patched.status, 200, patched.text);
    }
    const patched = await e.app(member, 'PATCH', `/api/app/workers/${w.id}`, { enabled: false, schedule: null, notifyUrl: 'https://n.example.com/' });
    assert.equal(patched.status, 200);
    assert.deepEqual([patched.body.enabled, patched.body.schedule, patched.body.notifyUrl, patched.body.name], [false, null, 'https://n.example.com/', 'by owner']);
    // Changing the agent checks it against the Worker's owner, not the editor.
    const adminsPrivate = await e.agent(admin);
    assert.equal((await e.app(admin, 'PATCH', `/api/app/workers/${w.id}`, { agentId: adminsPrivate })).status, 404);
    assert.equal((await e.app(viewer, 'DELETE', `/api/app/workers/${w.id}`)).status, 404);
    assert.equal((await e.app(admin, 'DELETE', `/api/app/workers/${w.id}`)).status, 204);
    assert.equal((await e.app(member, 'GET', `/api/app/workers/${w.id}`)).status, 404);
    assert.equal((await e.app(member, 'DELETE', `/api/app/workers/${w.id}`)).status, 404);
  });

  test('rotate-webhook: a new ref once, a new preview', async () => {
    const w = (await mk()).body;
    const r = await e.app(e.g.people.member, 'POST', `/api/app/workers/${w.id}/rotate-webhook`);
    assert.equal(r.status, 200, r.text);
    assert.match(r.body.token, /^svc_whk_/);
    assert.notEqual(r.body.token, w.token);
    assert.equal(r.body.webhookRefPreview, `svc_whk_…${r.body.token.slice(-4)}`);
    assert.equal((await e.app(e.g.people.viewer, 'POST', `/api/app/workers/${w.id}/rotate-webhook`)).status, 404);
  });

  test('legacy agent webhook token: agent owner or admin+, once; DELETE removes it', async () => {
    const a = await e.agent(e.g.people.member);
    assert.equal((await e.app(e.g.people.viewer, 'POST', `/api/app/agents/${a}/webhook-token`)).status, 404);
    const r = await e.app(e.g.people.member, 'POST', `/api/app/agents/${a}/webhook-token`);
    assert.equal(r.status, 201, r.text);
    assert.match(r.body.token, /^svc_whk_/);
    assert.equal(r.body.tokenPreview, `svc_whk_…${r.body.token.slice(-4)}`);
    const byAdmin = await e.app(e.g.people.admin, 'POST', `/api/app/agents/${a}/webhook-token`);
    assert.equal(byAdmin.status, 201);
    assert.equal(byAdmin.body.userId, e.g.people.admin.userId);
    assert.equal((await e.app(e.g.people.member, 'DELETE', `/api/app/agents/${a}/webhook-token`)).status, 204);
    const row = await e.g.core.db.one<{ h: string | null }>('SELECT webhook_token_hash AS h FROM agents WHERE id = ?', [a]);
    assert.equal(row?.h, null);
  });
});
