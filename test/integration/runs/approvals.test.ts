// Tool approvals through HTTP: approve → the tool runs and the run completes; reject → cancelled;
// decisions are single-use (approve twice, reject after approve → 409); another user's decision →
// 404; and an approval row forged in the store (status set without a valid signature) never runs
// the tool — the run fails with approval_invalid. The local target server counts every request, so
// "never ran" is observed, not inferred.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import { executeRun } from '../../../core/runs/executor.ts';
import { startTestServer, type TestServer } from '../../helpers/http-target.ts';
import { httpCall, startRuns, type RunsEnv } from './setup.ts';

describe('run approvals (SQLite)', () => {
  let r: RunsEnv;
  let target: TestServer;
  let token: string;
  let agentId: string;

  beforeAll(async () => {
    r = await startRuns();
    target = await startTestServer();
    token = await r.token(r.g.people.member);
    agentId = await r.agent(r.g.people.member, { tools: [{ type: 'http_request', approval: 'always' }] });
    // Shared, so another user can see the agent and try to decide this user's approval.
    assert.equal((await r.app(r.g.people.member, 'POST', `/api/app/agents/${agentId}/shares`, { workspace: true })).status, 200);
  });
  afterAll(async () => {
    await target.close();
    await r.close();
  });
  beforeEach(() => {
    r.g.openai.reset();
    target.requests.length = 0;
  });

  /** A run stopped at its approval checkpoint. */
  async function waiting(body = 'approved-call') {
    r.g.openai.once({ toolCalls: [httpCall(`${target.origin}/text?body=${body}`)] });
    r.g.openai.once({ text: `tool said ${body}` });
    const res = await r.start(token, agentId);
    assert.equal(res.body.status, 'waiting_input', res.text);
    assert.equal(target.requests.length, 0, 'nothing runs before the decision');
    return { runId: res.body.runId as string, approvalId: res.body.approvalId as string };
  }

  test('approve → the tool runs, the loop continues in the request, the run completes', async () => {
    const w = await waiting();
    const res = await r.decide(token, agentId, w.runId, w.approvalId, 'approve');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'completed');
    assert.equal(res.body.outputText, 'tool said approved-call');
    assert.equal(target.requests.length, 1);
    const read = await r.read(token, agentId, w.runId);
    assert.deepEqual(read.body.steps.map((s: any) => [s.kind, s.status]), [['model', 'completed'], ['tool', 'completed'], ['model', 'completed']]);
    assert.match(read.body.steps[1].output, /approved-call/);
    const kinds = read.body.events.map((e: any) => e.kind);
    assert.deepEqual(kinds.slice(kinds.indexOf('approval.requested')), [
      'approval.requested', 'run.waiting_input', 'approval.approved', 'run.resumed',
      'step.completed', 'step.started', 'step.completed', 'run.completed',
    ]);
    assert.equal(read.body.run.approvalId, null);
  });

  test('approved twice → 409; rejected after approval → 409; the tool ran once', async () => {
    const w = await waiting();
    assert.equal((await r.decide(token, agentId, w.runId, w.approvalId, 'approve')).status, 200);
    for (const d of ['approve', 'reject']) {
      const again = await r.decide(token, agentId, w.runId, w.approvalId, d);
      assert.equal(again.status, 409, again.text);
      assert.equal(again.body.error.code, 'approval_decided');
    }
    assert.equal(target.requests.length, 1);
    assert.equal((await r.read(token, agentId, w.runId)).body.run.status, 'completed');
  });

  test('concurrent approvals: exactly one wins, the tool runs once', async () => {
    const w = await waiting();
    const all = await Promise.all(Array.from({ length: 5 }, () => r.decide(token, agentId, w.runId, w.approvalId, 'approve')));
    assert.deepEqual(all.map((x) => x.status).sort(), [200, 409, 409, 409, 409]);
    assert.equal(target.requests.length, 1);
  });

  test('reject → cancelled, then approve → 409; the tool never runs', async () => {
    const w = await waiting();
    const rej = await r.decide(token, agentId, w.runId, w.approvalId, 'reject');
    assert.equal(rej.status, 200);
    assert.equal(rej.body.status, 'cancelled');
    assert.equal((await r.decide(token, agentId, w.runId, w.approvalId, 'approve')).status, 409);
    assert.equal(target.requests.length, 0);
  });

  test('another user → 404 (approve and reject), and the approval stays pending for its owner', async () => {
    const w = await waiting();
    const admin = await r.token(r.g.people.admin);
    for (const d of ['approve', 'reject']) {
      const res = await r.decide(admin, agentId, w.runId, w.approvalId, d);
      assert.equal(res.status, 404, res.text);
    }
    const unknown = await r.decide(token, agentId, w.runId, 'apr_00000000000000000000', 'approve');
    assert.equal(unknown.status, 404);
    assert.equal((await r.decide(token, agentId, w.runId, w.approvalId, 'maybe')).status, 400);
    assert.equal(target.requests.length, 0);
    assert.equal((await r.decide(token, agentId, w.runId, w.approvalId, 'approve')).body.status, 'completed');
  });

  test('a tampered approval row never runs the tool: the run fails with approval_invalid', async () => {
    const db = r.g.core.db;
    const now = new Date(r.g.fx.clock.now()).toISOString();
    for (const forged of [
      { signature: null, decided_by: r.g.people.member.userId },
      { signature: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', decided_by: r.g.people.member.userId },
    ]) {
      const w = await waiting('forged');
      // Someone with write access to the store approves it directly and resumes the run the way the
      // decision path would (running, a fresh claim token) — but cannot produce the signature.
      await db.run("UPDATE approvals SET status = 'approved', decided_by = ?, decided_at = ?, signature = ? WHERE id = ?", [forged.decided_by, now, forged.signature, w.approvalId]);
      await db.run("UPDATE runs SET status = 'running', claim_token = 'forged', running_since = ?, approval_id = NULL WHERE id = ?", [now, w.runId]);
      await executeRun(r.rt.deps, w.runId, 'forged');
      const read = await r.read(token, agentId, w.runId);
      assert.equal(read.body.run.status, 'failed');
      assert.equal(read.body.run.errorCode, 'approval_invalid');
      assert.equal(target.requests.length, 0, 'the tool never ran');
      assert.equal(r.g.openai.calls, 1, 'no model call after the forged approval');
      // The HTTP path cannot be used to launder it: the row is no longer pending.
      assert.equal((await r.decide(token, agentId, w.runId, w.approvalId, 'approve')).status, 409);
      r.g.openai.reset();
    }
  });

  test("a genuine signature copied onto another approval is refused (bound to run, step, decision, user, time)", async () => {
    const a = await waiting('first');
    assert.equal((await r.decide(token, agentId, a.runId, a.approvalId, 'approve')).status, 200);
    const signed = await r.g.core.db.one<{ decided_by: string; decided_at: string; signature: string }>('SELECT decided_by, decided_at, signature FROM approvals WHERE id = ?', [a.approvalId]);
    target.requests.length = 0;
    r.g.openai.reset();
    const b = await waiting('second');
    await r.g.core.db.run("UPDATE approvals SET status = 'approved', decided_by = ?, decided_at = ?, signature = ? WHERE id = ?", [signed!.decided_by, signed!.decided_at, signed!.signature, b.approvalId]);
    await r.g.core.db.run("UPDATE runs SET status = 'running', claim_token = 'copied', approval_id = NULL WHERE id = ?", [b.runId]);
    await executeRun(r.rt.deps, b.runId, 'copied');
    assert.equal((await r.read(token, agentId, b.runId)).body.run.errorCode, 'approval_invalid');
    assert.equal(target.requests.length, 0);
  });
});
