// The run API judges the caller as they are now, not as they were when the run started (issue 12
// items 6 and 19), on both stores: a member removed from the workspace, demoted to viewer, or whose
// agent was unshared can no longer decide their waiting run's tool call (the tool never runs); and
// listing the runs of an agent one may not run is a 404, as the start is.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import { register } from '../../../core/accounts/register.ts';
import { createSession } from '../../../core/accounts/sessions.ts';
import { addMember } from '../../../core/accounts/workspaces.ts';
import { accountsDeps } from '../../../core/services.ts';
import { startTestServer, type TestServer } from '../../helpers/http-target.ts';
import type { Person } from '../people.ts';
import { httpCall, startRuns, type RunsEnv } from './setup.ts';

for (const store of ['sqlite', 'postgres'] as const) {
  describe(`run API after a membership or share change [${store}]`, () => {
    let r: RunsEnv;
    let target: TestServer;
    let agentId: string; // the owner's agent, tool approval always, shared with each test's user
    let n = 0;

    beforeAll(async () => {
      r = await startRuns({ store });
      target = await startTestServer();
      agentId = await r.agent(r.g.people.owner, { tools: [{ type: 'http_request', approval: 'always' }] });
    });
    afterAll(async () => {
      await target.close();
      await r.close();
    });
    beforeEach(() => {
      r.g.openai.reset();
      target.requests.length = 0;
    });

    /** A fresh member of the operator workspace with a session, an access token, and the agent shared with them. */
    async function member(): Promise<{ person: Person; token: string }> {
      const deps = { ...accountsDeps(r.g.core), registrationMode: 'open' };
      const account = await register(deps, { email: `m${++n}@example.test`, password: 'correct horse battery', name: `m${n}` });
      await addMember(r.g.core.db, r.g.people.workspace, account.user.id, 'member', new Date(r.g.fx.clock.now()).toISOString());
      const s = await createSession(deps, account.user.id);
      const person: Person = {
        userId: account.user.id,
        ownWorkspace: account.workspaces[0]!.id,
        token: s.token,
        csrf: s.csrf,
        headers: (o = {}) => ({ cookie: `service_session=${s.token}; service_csrf=${s.csrf}`, 'x-csrf-token': s.csrf, ...(o.workspace ? { 'x-workspace-id': o.workspace } : {}) }),
      };
      const shared = await r.app(r.g.people.owner, 'POST', `/api/app/agents/${agentId}/shares`, { userId: person.userId });
      assert.equal(shared.status, 200, shared.text);
      return { person, token: await r.token(person) };
    }

    async function waiting(token: string) {
      r.g.openai.once({ toolCalls: [httpCall(`${target.origin}/text?body=x`)] });
      r.g.openai.once({ text: 'done' });
      const res = await r.start(token, agentId);
      assert.equal(res.body.status, 'waiting_input', res.text);
      return { runId: res.body.runId as string, approvalId: res.body.approvalId as string };
    }

    /** Both decisions are refused with `status`, the tool never runs and the approval stays pending. */
    async function refused(token: string, w: { runId: string; approvalId: string }, status: number) {
      for (const d of ['approve', 'reject']) {
        const res = await r.decide(token, agentId, w.runId, w.approvalId, d);
        assert.equal(res.status, status, res.text);
      }
      assert.equal(target.requests.length, 0, 'the tool never ran');
      const row = await r.g.core.db.one<{ status: string }>('SELECT status FROM approvals WHERE id = ?', [w.approvalId]);
      assert.equal(row!.status, 'pending');
      const run = await r.g.core.db.one<{ status: string }>('SELECT status FROM runs WHERE id = ?', [w.runId]);
      assert.equal(run!.status, 'waiting_input');
    }

    test('control: a member who still may run the agent approves, and the tool runs', async () => {
      const m = await member();
      const w = await waiting(m.token);
      const res = await r.decide(m.token, agentId, w.runId, w.approvalId, 'approve');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'completed');
      assert.equal(target.requests.length, 1);
    });

    test('removed from the workspace → 404 on approve and reject', async () => {
      const m = await member();
      const w = await waiting(m.token);
      assert.equal((await r.app(r.g.people.owner, 'DELETE', `/api/app/members/${m.person.userId}`)).status, 204);
      await refused(m.token, w, 404);
    });

    test('demoted to viewer → 403 on approve and reject', async () => {
      const m = await member();
      const w = await waiting(m.token);
      assert.equal((await r.app(r.g.people.owner, 'PATCH', `/api/app/members/${m.person.userId}`, { role: 'viewer' })).status, 200);
      await refused(m.token, w, 403);
    });

    test('the agent unshared from them → 404 on approve and reject', async () => {
      const m = await member();
      const w = await waiting(m.token);
      assert.equal((await r.app(r.g.people.owner, 'DELETE', `/api/app/agents/${agentId}/shares`, { userId: m.person.userId })).status, 200);
      await refused(m.token, w, 404);
    });

    test('listing the runs of an agent one may not run is a 404, as the start; a runnable one lists', async () => {
      const m = await member();
      r.g.openai.once({ text: 'ok' });
      const started = await r.start(m.token, agentId);
      assert.equal(started.status, 201, started.text);
      const listed = await r.list(m.token, agentId);
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(listed.body.data.map((x: { runId: string }) => x.runId), [started.body.runId]);

      const draft = await r.agent(r.g.people.owner, {}, { publish: false });
      const unshared = await r.agent(r.g.people.owner);
      for (const id of [draft, unshared, 'agt_00000000000000000000', 'nonsense']) {
        const start = await r.start(m.token, id);
        const list = await r.list(m.token, id);
        assert.equal(start.status, 404, start.text);
        assert.equal(list.status, 404, `${id}: ${list.text}`);
        assert.equal(list.body.error.code, 'not_found');
        assert.equal(list.body.error.message, start.body.error.message, 'the same answer as the start');
      }
      // Unshared from them afterwards: their own earlier runs are no longer listed through the agent.
      assert.equal((await r.app(r.g.people.owner, 'DELETE', `/api/app/agents/${agentId}/shares`, { userId: m.person.userId })).status, 200);
      assert.equal((await r.list(m.token, agentId)).status, 404);
    });
  });
}
