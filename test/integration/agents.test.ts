// Agents (issue 5, item 1) through HTTP against a running gateway: drafts, roles, publishing
// immutable versions (and concurrent publishes on both stores), shares, runnableVersion for every
// case the run API relies on, and checkVersionTarget for every stale-target case.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { register } from '../../core/accounts/register.ts';
import type { Role } from '../../core/accounts/roles.ts';
import { createSession } from '../../core/accounts/sessions.ts';
import { addMember } from '../../core/accounts/workspaces.ts';
import { checkVersionTarget, publishAgent, runnableVersion } from '../../core/agents/service.ts';
import type { Agent, AgentVersion } from '../../core/agents/types.ts';
import { AppError } from '../../core/kernel/errors.ts';
import type { Dialect } from '../../core/store/types.ts';
import { accountsDeps } from '../../core/services.ts';
import { startGateway, type Gateway } from './gateway/harness.ts';

interface Who {
  userId: string;
  headers(opts?: { workspace?: string }): Record<string, string>;
}
type ErrorBody = { error: { code: string; field?: string; message: string } };

/** A request as `who`, acting in workspace `ws` (default the cast's operator workspace). */
async function as(g: Gateway, who: Who, method: string, path: string, body?: unknown, ws = g.people.workspace) {
  const headers = { ...who.headers({ workspace: ws }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
  const res = await fetch(g.base + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as any, text };
}

/** One more person, a member of the operator workspace with `role`. */
async function joiner(g: Gateway, name: string, role: Role): Promise<Who> {
  const deps = { ...accountsDeps(g.core), registrationMode: 'open' };
  const acc = await register(deps, { email: `${name}@example.test`, password: 'correct horse battery', name });
  await addMember(g.core.db, g.people.workspace, acc.user.id, role, new Date(g.core.clock.now()).toISOString());
  const s = await createSession(deps, acc.user.id);
  return {
    userId: acc.user.id,
    headers: (o = {}) => ({ cookie: `service_session=${s.token}; service_csrf=${s.csrf}`, 'x-csrf-token': s.csrf, ...(o.workspace ? { 'x-workspace-id': o.workspace } : {}) }),
  };
}

async function accountId(g: Gateway, slug: string): Promise<string> {
  const r = await as(g, g.people.owner, 'GET', '/api/app/provider-accounts');
  return (r.body.data as { id: string; slug: string }[]).find((a) => a.slug === slug)!.id;
}

describe('agents (SQLite)', () => {
  let g: Gateway;
  let fake: string;
  const draft = (over: Record<string, unknown> = {}) => ({ name: 'Helper', instructions: 'Be brief.', providerAccountId: fake, model: 'fake/gpt-test', ...over });
  const create = async (who: Who, over: Record<string, unknown> = {}) => {
    const r = await as(g, who, 'POST', '/api/app/agents', draft(over));
    assert.equal(r.status, 201, r.text);
    return r.body as Agent;
  };
  const publish = async (who: Who, id: string) => {
    const r = await as(g, who, 'POST', `/api/app/agents/${id}/publish`);
    assert.equal(r.status, 201, r.text);
    return r.body as AgentVersion;
  };

  beforeAll(async () => {
    g = await startGateway();
    fake = await accountId(g, 'fake');
  });
  afterAll(() => g.close());

  test('create → 201 with id first; defaults for tools and settings; get, list, patch, delete', async () => {
    const { member } = g.people;
    const r = await as(g, member, 'POST', '/api/app/agents', draft({ tools: [{ type: 'http_request' }], settings: { temperature: 0.2, maxSteps: 12 } }));
    assert.equal(r.status, 201, r.text);
    assert.equal(Object.keys(r.body)[0], 'id');
    assert.match(r.body.id, /^agt_[0-9a-z]{20}$/);
    const a = r.body as Agent;
    assert.equal(a.ownerUserId, member.userId);
    assert.equal(a.workspaceId, g.people.workspace);
    assert.deepEqual(a.tools, [{ type: 'http_request', name: 'http_request', approval: 'never', config: {} }]);
    assert.deepEqual(a.settings, { temperature: 0.2, maxSteps: 12 });
    assert.equal(a.latestVersion, 0);
    assert.equal(a.sharedWithWorkspace, false);

    assert.deepEqual((await as(g, member, 'GET', `/api/app/agents/${a.id}`)).body, a);
    assert.ok((await as(g, member, 'GET', '/api/app/agents')).body.data.some((x: Agent) => x.id === a.id));

    const p = await as(g, member, 'PATCH', `/api/app/agents/${a.id}`, { name: 'Renamed', settings: { maxOutputTokens: 500 }, model: null });
    assert.equal(p.status, 200, p.text);
    assert.equal(p.body.name, 'Renamed');
    assert.equal(p.body.instructions, 'Be brief.');
    assert.deepEqual(p.body.settings, { maxOutputTokens: 500 });
    assert.equal(p.body.model, null);
    assert.deepEqual(p.body.tools, a.tools);

    assert.equal((await as(g, member, 'DELETE', `/api/app/agents/${a.id}`)).status, 204);
    assert.equal((await as(g, member, 'GET', `/api/app/agents/${a.id}`)).status, 404);
    assert.equal((await as(g, member, 'DELETE', `/api/app/agents/${a.id}`)).status, 404);
    assert.ok(!(await as(g, member, 'GET', '/api/app/agents')).body.data.some((x: Agent) => x.id === a.id));
  });

  test('bad drafts → 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ tools: [{ type: 'shell' }] }, 'unknown_tool', 'tools.0.type'],
      [{ tools: [{ type: 'http_request' }, { type: 'http_request' }] }, 'duplicate_tool_name', 'tools.1.name'],
      [{ tools: [{ type: 'http_request', name: 'has space' }] }, 'invalid_tool_name', 'tools.0.name'],
      [{ tools: [{ type: 'http_request', approval: 'sometimes' }] }, 'invalid_request', 'tools.0.approval'],
      [{ tools: [{ type: 'http_request', config: { allowedHosts: ['not a host!'] } }] }, 'invalid_tool_config', 'tools.0.config.allowedHosts.0'],
      [{ tools: [{ type: 'http_request', config: { retries: 3 } }] }, 'invalid_tool_config', 'tools.0.config'],
      [{ settings: { temperature: 2.5 } }, 'invalid_request', 'settings.temperature'],
      [{ settings: { temperature: -0.1 } }, 'invalid_request', 'settings.temperature'],
      [{ settings: { maxSteps: 51 } }, 'invalid_request', 'settings.maxSteps'],
      [{ settings: { maxSteps: 0 } }, 'invalid_request', 'settings.maxSteps'],
      [{ settings: { maxOutputTokens: 0 } }, 'invalid_request', 'settings.maxOutputTokens'],
      [{ settings: { maxOutputTokens: 1.5 } }, 'invalid_request', 'settings.maxOutputTokens'],
      [{ settings: { topK: 3 } }, 'invalid_request', 'settings'],
      [{ extra: 1 }, 'invalid_request', ''],
      [{ name: '  ' }, 'invalid_request', 'name'],
      [{ providerAccountId: 'pa_nope' }, 'provider_account_invalid', 'providerAccountId'],
      [{ providerAccountId: 'pa_local' }, 'provider_account_invalid', 'providerAccountId'], // no LOCAL_LLM_BASE_URL here
      [{ model: 'claude/claude-test' }, 'model_invalid', 'model'],
      [{ model: 'gpt-test' }, 'model_invalid', 'model'],
    ];
    for (const [over, code, field] of cases) {
      const r = await as(g, g.people.member, 'POST', '/api/app/agents', draft(over));
      assert.equal(r.status, 400, `${JSON.stringify(over)}: ${r.text}`);
      assert.equal((r.body as ErrorBody).error.code, code, JSON.stringify(over));
      if (field) assert.equal((r.body as ErrorBody).error.field, field, JSON.stringify(over));
    }
    // Upper bounds are inclusive, and approval `always` is kept.
    const ok = await create(g.people.member, { settings: { temperature: 2, maxSteps: 50 }, tools: [{ type: 'http_request', name: 'fetch', approval: 'always' }] });
    assert.deepEqual(ok.tools, [{ type: 'http_request', name: 'fetch', approval: 'always', config: {} }]);
    // The tool's own schema normalises its config.
    const hosts = await create(g.people.member, { tools: [{ type: 'http_request', config: { allowedHosts: [' API.Example.com '] } }] });
    assert.deepEqual(hosts.tools[0]!.config, { allowedHosts: ['api.example.com'] });
  });

  test('roles: viewers cannot create; private drafts are 404 to others; admins manage; sharing makes it readable, not writable', async () => {
    const { member, viewer, admin, owner, outsider } = g.people;
    assert.equal((await as(g, viewer, 'POST', '/api/app/agents', draft())).status, 403);
    assert.equal((await as(g, outsider, 'POST', '/api/app/agents', draft())).status, 403); // not a member of W
    const a = await create(member);
    const other = await joiner(g, 'member2', 'member');
    for (const who of [viewer, other]) {
      assert.equal((await as(g, who, 'GET', `/api/app/agents/${a.id}`)).status, 404);
      assert.equal((await as(g, who, 'PATCH', `/api/app/agents/${a.id}`, { name: 'x' })).status, 404);
      assert.ok(!(await as(g, who, 'GET', '/api/app/agents')).body.data.some((x: Agent) => x.id === a.id));
    }
    // Admins and owners see and manage every agent; `?all=1` lists private drafts, plain list does not.
    assert.equal((await as(g, admin, 'GET', `/api/app/agents/${a.id}`)).status, 200);
    assert.ok(!(await as(g, admin, 'GET', '/api/app/agents')).body.data.some((x: Agent) => x.id === a.id));
    assert.ok((await as(g, admin, 'GET', '/api/app/agents?all=1')).body.data.some((x: Agent) => x.id === a.id));
    assert.ok(!(await as(g, other, 'GET', '/api/app/agents?all=1')).body.data.some((x: Agent) => x.id === a.id));
    assert.equal((await as(g, admin, 'PATCH', `/api/app/agents/${a.id}`, { instructions: 'Admin edit.' })).body.instructions, 'Admin edit.');
    assert.equal((await as(g, owner, 'POST', `/api/app/agents/${a.id}/publish`)).status, 201);
    // Shared: readable (agent and versions) but not writable.
    assert.equal((await as(g, member, 'POST', `/api/app/agents/${a.id}/shares`, { workspace: true })).status, 200);
    for (const who of [viewer, other]) {
      assert.equal((await as(g, who, 'GET', `/api/app/agents/${a.id}`)).status, 200);
      assert.equal((await as(g, who, 'GET', `/api/app/agents/${a.id}/versions/1`)).status, 200);
      assert.ok((await as(g, who, 'GET', '/api/app/agents')).body.data.some((x: Agent) => x.id === a.id));
      assert.equal((await as(g, who, 'PATCH', `/api/app/agents/${a.id}`, { name: 'x' })).status, 403);
      assert.equal((await as(g, who, 'POST', `/api/app/agents/${a.id}/publish`)).status, 403);
      assert.equal((await as(g, who, 'POST', `/api/app/agents/${a.id}/shares`, { userId: who.userId })).status, 403);
      assert.equal((await as(g, who, 'DELETE', `/api/app/agents/${a.id}`)).status, 403);
    }
    // Another workspace never sees it, whatever the id.
    assert.equal((await as(g, outsider, 'GET', `/api/app/agents/${a.id}`, undefined, outsider.ownWorkspace)).status, 404);
    // A viewer-owned agent (demoted after creating it) is read-only to its owner.
    const demoted = await joiner(g, 'demoted', 'member');
    const d = await create(demoted);
    await g.core.db.run('UPDATE memberships SET role = ? WHERE workspace_id = ? AND user_id = ?', ['viewer', g.people.workspace, demoted.userId]);
    assert.equal((await as(g, demoted, 'GET', `/api/app/agents/${d.id}`)).status, 200);
    assert.equal((await as(g, demoted, 'PATCH', `/api/app/agents/${d.id}`, { name: 'x' })).status, 403);
  });

  test('publish freezes version N; editing the draft never changes a published version', async () => {
    const { member } = g.people;
    const a = await create(member, { tools: [{ type: 'http_request', approval: 'always' }], settings: { maxSteps: 3 } });
    const v1 = await publish(member, a.id);
    assert.equal(v1.version, 1);
    assert.equal(v1.agentId, a.id);
    assert.equal(v1.workspaceId, g.people.workspace);
    assert.equal(v1.publishedBy, member.userId);
    assert.equal(v1.instructions, 'Be brief.');
    assert.deepEqual(v1.tools, a.tools);
    assert.deepEqual(v1.settings, { maxSteps: 3 });
    assert.equal((await as(g, member, 'GET', `/api/app/agents/${a.id}`)).body.latestVersion, 1);

    await as(g, member, 'PATCH', `/api/app/agents/${a.id}`, { instructions: 'Be verbose.', tools: [], settings: { maxSteps: 9 } });
    assert.deepEqual((await as(g, member, 'GET', `/api/app/agents/${a.id}/versions/1`)).body, v1);
    const v2 = await publish(member, a.id);
    assert.equal(v2.version, 2);
    assert.equal(v2.instructions, 'Be verbose.');
    assert.deepEqual(v2.tools, []);
    assert.deepEqual((await as(g, member, 'GET', `/api/app/agents/${a.id}/versions/1`)).body, v1);
    const list = await as(g, member, 'GET', `/api/app/agents/${a.id}/versions`);
    assert.deepEqual(list.body.data.map((v: AgentVersion) => v.version), [2, 1]);
    for (const bad of ['3', '0', 'abc', '-1', '1.5']) assert.equal((await as(g, member, 'GET', `/api/app/agents/${a.id}/versions/${bad}`)).status, 404, bad);
    assert.equal((await as(g, member, 'GET', '/api/app/agents/agt_nope/versions')).status, 404);
    // The version row is never written again: no route changes it, and the agent's counter moved on.
    assert.equal((await as(g, member, 'PATCH', `/api/app/agents/${a.id}`, { version: 1 })).status, 400);
  });

  test('publish refuses a draft whose account or model would not run (400 naming the field)', async () => {
    const { member } = g.people;
    const noAccount = await create(member, { providerAccountId: null, model: null });
    let r = await as(g, member, 'POST', `/api/app/agents/${noAccount.id}/publish`);
    assert.equal(r.status, 400);
    assert.deepEqual([r.body.error.code, r.body.error.field], ['provider_account_invalid', 'providerAccountId']);
    const noModel = await create(member, { model: null });
    r = await as(g, member, 'POST', `/api/app/agents/${noModel.id}/publish`);
    assert.deepEqual([r.status, r.body.error.code, r.body.error.field], [400, 'model_invalid', 'model']);
    const unknown = await create(member, { model: 'fake/not-offered' });
    r = await as(g, member, 'POST', `/api/app/agents/${unknown.id}/publish`);
    assert.deepEqual([r.status, r.body.error.code, r.body.error.field], [400, 'model_invalid', 'model']);
    assert.match(r.body.error.message, /publish it again/);
    assert.equal((await as(g, member, 'GET', `/api/app/agents/${unknown.id}`)).body.latestVersion, 0);
  });

  test('shares: with a member or the workspace, unshare, and who may; a non-member is 400', async () => {
    const { member, viewer, outsider, admin } = g.people;
    const a = await create(member);
    let r = await as(g, member, 'POST', `/api/app/agents/${a.id}/shares`, { userId: viewer.userId });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { agentId: a.id, workspace: false, userIds: [viewer.userId] });
    assert.deepEqual((await as(g, member, 'POST', `/api/app/agents/${a.id}/shares`, { userId: viewer.userId })).body.userIds, [viewer.userId]); // idempotent
    r = await as(g, member, 'POST', `/api/app/agents/${a.id}/shares`, { userId: outsider.userId });
    assert.deepEqual([r.status, r.body.error.code, r.body.error.field], [400, 'not_a_member', 'userId']);
    r = await as(g, member, 'POST', `/api/app/agents/${a.id}/shares`, { userId: 'usr_nobody' });
    assert.deepEqual([r.status, r.body.error.code], [400, 'not_a_member']);
    for (const bad of [{}, { workspace: false }, { userId: viewer.userId, workspace: true }, { users: [] }]) {
      assert.equal((await as(g, member, 'POST', `/api/app/agents/${a.id}/shares`, bad)).status, 400, JSON.stringify(bad));
    }
    assert.deepEqual((await as(g, admin, 'POST', `/api/app/agents/${a.id}/shares`, { workspace: true })).body.workspace, true);
    assert.deepEqual((await as(g, member, 'GET', `/api/app/agents/${a.id}/shares`)).body, { agentId: a.id, workspace: true, userIds: [viewer.userId] });
    assert.equal((await as(g, viewer, 'GET', `/api/app/agents/${a.id}/shares`)).status, 403);
    assert.deepEqual((await as(g, member, 'DELETE', `/api/app/agents/${a.id}/shares`, { workspace: true })).body.workspace, false);
    assert.deepEqual((await as(g, member, 'DELETE', `/api/app/agents/${a.id}/shares`, { userId: viewer.userId })).body.userIds, []);
    assert.equal((await as(g, viewer, 'GET', `/api/app/agents/${a.id}`)).status, 404);
  });

  test('runnableVersion: owner, shared user, workspace share yes; unshared, non-member, removed member, unpublished, deleted, another workspace no', async () => {
    const { member, viewer, outsider, owner } = g.people;
    const db = g.core.db;
    const other = await joiner(g, 'runner2', 'member');
    const leaving = await joiner(g, 'leaving', 'member');
    const a = await create(member);
    assert.equal(await runnableVersion(db, a.id, member.userId), undefined, 'unpublished');
    await publish(member, a.id);
    await as(g, member, 'PATCH', `/api/app/agents/${a.id}`, { instructions: 'v2 draft' });
    const mine = await runnableVersion(db, a.id, member.userId);
    assert.equal(mine?.version, 1, 'owner');
    assert.equal(mine?.instructions, 'Be brief.', 'the published version, not the draft');
    assert.equal(mine?.workspaceId, g.people.workspace);
    assert.equal(await runnableVersion(db, a.id, other.userId), undefined, 'not shared');
    assert.equal(await runnableVersion(db, a.id, owner.userId), undefined, 'a workspace owner does not run private agents');

    await as(g, member, 'POST', `/api/app/agents/${a.id}/shares`, { userId: viewer.userId });
    await as(g, member, 'POST', `/api/app/agents/${a.id}/shares`, { userId: leaving.userId });
    assert.equal((await runnableVersion(db, a.id, viewer.userId))?.version, 1, 'shared user');
    assert.equal((await runnableVersion(db, a.id, leaving.userId))?.version, 1, 'shared user (before removal)');
    assert.equal(await runnableVersion(db, a.id, other.userId), undefined, 'still not shared with other');

    await as(g, member, 'POST', `/api/app/agents/${a.id}/shares`, { workspace: true });
    assert.equal((await runnableVersion(db, a.id, other.userId))?.version, 1, 'workspace share');
    assert.equal(await runnableVersion(db, a.id, outsider.userId), undefined, 'non-member, workspace share');

    // Removed from the workspace: neither the workspace share nor the direct share survives.
    assert.equal((await as(g, owner, 'DELETE', `/api/app/members/${leaving.userId}`)).status, 204);
    assert.equal(await runnableVersion(db, a.id, leaving.userId), undefined, 'removed member');

    // Publishing again moves everyone to the new version.
    await publish(member, a.id);
    assert.equal((await runnableVersion(db, a.id, other.userId))?.instructions, 'v2 draft');

    // An agent of another workspace, with an id known to the caller.
    const foreign = await as(g, outsider, 'POST', '/api/app/agents', { name: 'Theirs', instructions: 'x' }, outsider.ownWorkspace);
    assert.equal(foreign.status, 201, foreign.text);
    await g.core.db.run('UPDATE agents SET latest_version = 0 WHERE id = ?', [foreign.body.id]);
    await as(g, outsider, 'POST', `/api/app/agents/${foreign.body.id}/shares`, { workspace: true }, outsider.ownWorkspace);
    assert.equal(await runnableVersion(db, foreign.body.id, member.userId), undefined, 'another workspace (unpublished)');
    await g.core.db.run(
      `INSERT INTO agent_versions (agent_id, version, name, instructions, tools, settings, published_by, published_at) VALUES (?, 1, 'Theirs', 'x', '[]', '{}', ?, ?)`,
      [foreign.body.id, outsider.userId, new Date(0).toISOString()],
    );
    await g.core.db.run('UPDATE agents SET latest_version = 1 WHERE id = ?', [foreign.body.id]);
    assert.equal((await runnableVersion(db, foreign.body.id, outsider.userId))?.version, 1, 'its own owner runs it');
    assert.equal(await runnableVersion(db, foreign.body.id, member.userId), undefined, 'another workspace');

    // Unshared again, then deleted.
    await as(g, member, 'DELETE', `/api/app/agents/${a.id}/shares`, { workspace: true });
    assert.equal(await runnableVersion(db, a.id, other.userId), undefined, 'workspace share withdrawn');
    assert.equal((await runnableVersion(db, a.id, viewer.userId))?.version, 2, 'direct share stays');
    await as(g, member, 'DELETE', `/api/app/agents/${a.id}`);
    for (const u of [member, viewer]) assert.equal(await runnableVersion(db, a.id, u.userId), undefined, 'deleted');
    assert.equal(await runnableVersion(db, 'agt_unknown', member.userId), undefined, 'unknown');
  });

  describe('checkVersionTarget', () => {
    const ws = () => g.people.workspace;
    const expectCode = async (v: Pick<AgentVersion, 'workspaceId' | 'providerAccountId' | 'model'>, code: string, field: string) => {
      await assert.rejects(checkVersionTarget(g.services.gateway, v), (e: unknown) => {
        assert.ok(e instanceof AppError, String(e));
        assert.equal(e.status, 400);
        assert.equal(e.code, code);
        assert.equal(e.field, field);
        assert.match(e.message, /[Rr]e-select .* publish it again/);
        return true;
      });
    };
    const spare = async (slug: string) => {
      const r = await as(g, g.people.owner, 'POST', '/api/app/provider-accounts', { provider: 'openai-compatible', name: slug, slug, baseUrl: g.openai.url, models: ['gpt-test'] });
      assert.equal(r.status, 201, r.text);
      return r.body.id as string;
    };

    test('good: resolves to the account and upstream model', async () => {
      const r = await checkVersionTarget(g.services.gateway, { workspaceId: ws(), providerAccountId: fake, model: 'fake/gpt-test' });
      assert.equal(r.model.accountId, fake);
      assert.equal(r.model.upstream, 'gpt-test');
      assert.equal(r.target.provider, 'openai-compatible');
    });

    test('a published version whose account is later deleted or disabled', async () => {
      const { owner } = g.people;
      const gone = await spare('gone');
      const off = await spare('off');
      const a = await create(owner, { providerAccountId: gone, model: 'gone/gpt-test' });
      const b = await create(owner, { providerAccountId: off, model: 'off/gpt-test' });
      const va = await publish(owner, a.id);
      const vb = await publish(owner, b.id);
      assert.equal((await checkVersionTarget(g.services.gateway, va)).model.accountId, gone);
      assert.equal((await as(g, owner, 'DELETE', `/api/app/provider-accounts/${gone}`)).status, 204);
      assert.equal((await as(g, owner, 'PATCH', `/api/app/provider-accounts/${off}`, { enabled: false })).status, 200);
      await expectCode(va, 'provider_account_invalid', 'providerAccountId');
      await expectCode(vb, 'provider_account_invalid', 'providerAccountId');
      // Publishing again from a draft still pointing there is refused the same way.
      const r = await as(g, owner, 'POST', `/api/app/agents/${b.id}/publish`);
      assert.deepEqual([r.status, r.body.error.code, r.body.error.field], [400, 'provider_account_invalid', 'providerAccountId']);
    });

    test('missing account, account of another workspace, no model, model not offered, model of another account', async () => {
      await expectCode({ workspaceId: ws(), providerAccountId: null, model: 'fake/gpt-test' }, 'provider_account_invalid', 'providerAccountId');
      await expectCode({ workspaceId: ws(), providerAccountId: 'pa_missing', model: 'fake/gpt-test' }, 'provider_account_invalid', 'providerAccountId');
      await expectCode({ workspaceId: g.people.outsider.ownWorkspace, providerAccountId: fake, model: 'fake/gpt-test' }, 'provider_account_invalid', 'providerAccountId');
      await expectCode({ workspaceId: ws(), providerAccountId: 'pa_local', model: 'local/llama' }, 'provider_account_invalid', 'providerAccountId');
      await expectCode({ workspaceId: ws(), providerAccountId: fake, model: null }, 'model_invalid', 'model');
      await expectCode({ workspaceId: ws(), providerAccountId: fake, model: 'fake/not-offered' }, 'model_invalid', 'model');
      await expectCode({ workspaceId: ws(), providerAccountId: fake, model: 'claude/claude-test' }, 'model_invalid', 'model');
      await expectCode({ workspaceId: ws(), providerAccountId: fake, model: 'gpt-test' }, 'model_invalid', 'model');
    });
  });
});

for (const store of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`concurrent publishes (${store})`, () => {
    let g: Gateway;
    beforeAll(async () => {
      g = await startGateway({ store });
    });
    afterAll(() => g.close());

    test('N concurrent publishes get versions 1..N, each exactly once, and the counter ends at N', async () => {
      const { member } = g.people;
      const fake = await accountId(g, 'fake');
      const r = await as(g, member, 'POST', '/api/app/agents', { name: 'Race', instructions: 'x', providerAccountId: fake, model: 'fake/gpt-test' });
      assert.equal(r.status, 201, r.text);
      const id = r.body.id as string;
      const N = 12;
      // Through HTTP and through the service directly, interleaved: both paths share one counter.
      const caller = { userId: member.userId, workspaceId: g.people.workspace, role: 'member' as const };
      const deps = { db: g.core.db, clock: g.core.clock, accounts: g.services.gateway.accounts };
      const results = await Promise.all(
        Array.from({ length: N }, (_, i) =>
          i % 2 === 0
            ? as(g, member, 'POST', `/api/app/agents/${id}/publish`).then((x) => {
                assert.equal(x.status, 201, x.text);
                return (x.body as AgentVersion).version;
              })
            : publishAgent(deps, caller, id).then((v) => v.version),
        ),
      );
      assert.deepEqual([...results].sort((a, b) => a - b), Array.from({ length: N }, (_, i) => i + 1));
      const rows = await g.core.db.all<{ version: number }>('SELECT version FROM agent_versions WHERE agent_id = ? ORDER BY version', [id]);
      assert.deepEqual(rows.map((x) => Number(x.version)), Array.from({ length: N }, (_, i) => i + 1));
      assert.equal((await as(g, member, 'GET', `/api/app/agents/${id}`)).body.latestVersion, N);
      assert.equal((await runnableVersion(g.core.db, id, member.userId))?.version, N);
    });
  });
}
