// run_code with approval "always", on both stores: nothing runs before the decision; approve → the
// program runs in the sandbox and the run completes with its result; reject → it never runs.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import type { Dialect } from '../../../core/store/types.ts';
import { startRuns, type RunsEnv } from '../runs/setup.ts';
import { SANDBOX_ENV } from './setup.ts';

for (const store of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`run_code approval (${store})`, () => {
    let r: RunsEnv;
    let token: string;
    let agentId: string;
    beforeAll(async () => {
      r = await startRuns({ store, env: SANDBOX_ENV });
      token = await r.token(r.g.people.member);
      agentId = await r.agent(r.g.people.member, { tools: [{ type: 'run_code', approval: 'always' }] });
    });
    afterAll(() => r.close());

    const waiting = async (code: string) => {
      r.g.openai.reset();
      r.g.openai.once({ toolCalls: [{ id: 'call_c', name: 'run_code', arguments: JSON.stringify({ code }) }] });
      r.g.openai.once({ text: 'answered' });
      const res = await r.start(token, agentId);
      assert.equal(res.body.status, 'waiting_input', res.text);
      return res.body as { runId: string; approvalId: string };
    };

    test('approve: the program runs and the model reads its result', async () => {
      const w = await waiting("console.log('approved', 6 * 7)");
      const res = await r.decide(token, agentId, w.runId, w.approvalId, 'approve');
      assert.equal(res.body.status, 'completed', res.text);
      const tool = (await r.read(token, agentId, w.runId)).body.steps[1];
      assert.deepEqual(JSON.parse(tool.output), { ...JSON.parse(tool.output), exitCode: 0, stdout: 'approved 42\n', limit: null });
    });

    test('reject: the program never runs', async () => {
      const w = await waiting("console.log('must not run')");
      const res = await r.decide(token, agentId, w.runId, w.approvalId, 'reject');
      assert.equal(res.body.status, 'cancelled', res.text);
      const tool = (await r.read(token, agentId, w.runId)).body.steps.find((s: { kind: string }) => s.kind === 'tool');
      assert.equal(tool.status, 'rejected');
      assert.doesNotMatch(String(tool.output ?? ''), /stdout/);
      assert.equal(r.g.openai.requests.length, 1);
    });
  });
}
