// The provider-call ledger (DESIGN "Agents and runs"): a model step is written `started` before the
// provider is called; an executor that finds a started step without a result never calls again,
// because the provider may already have served and billed it. Two ways to leave such a step: an
// executor killed mid-call (the fake hangs, the run is reclaimed under a new claim token, the old
// executor is fenced), and a step row written directly. Re-execution then fails the run with
// ambiguous_provider_call and the fake's call count does not grow. On both stores.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import { executeRun } from '../../../core/runs/executor.ts';
import { insertStep } from '../../../core/runs/repo/steps.ts';
import { insertNewRun, newClaimToken, prepareRun } from '../../../core/runs/start.ts';
import type { Dialect } from '../../../core/store/types.ts';
import { startTestServer, type TestServer } from '../../helpers/http-target.ts';
import { openDb } from '../../../core/store/index.ts';
import { MINUTE, startRuns, until, type RunsEnv } from './setup.ts';

for (const store of ['sqlite', 'postgres'] as Dialect[]) {
  describe(`provider-call ledger (${store})`, () => {
    let r: RunsEnv;
    let target: TestServer;
    let token: string;
    let agentId: string;

    beforeAll(async () => {
      r = await startRuns({ store });
      target = await startTestServer();
      token = await r.token(r.g.people.member);
      agentId = await r.agent(r.g.people.member, { tools: [{ type: 'http_request' }] });
    });
    afterAll(async () => {
      await target.close();
      await r.close();
    });
    beforeEach(() => r.g.openai.reset());

    const newRun = async (text: string) => {
      const input = { agentId, userId: r.g.people.member.userId, inputText: text };
      return insertNewRun(r.rt.deps, await prepareRun(r.rt.deps, input), input, { status: 'running', durable: false });
    };
    /** Moves the run to a new owner, as a reclaim would: the old token's writes match nothing. */
    const reclaim = async (runId: string) => {
      const t = newClaimToken();
      await r.g.core.db.run('UPDATE runs SET claim_token = ? WHERE id = ?', [t, runId]);
      return t;
    };

    test('an executor dies mid-call: the re-execution never calls the model again → ambiguous_provider_call', async () => {
      r.g.openai.script({ fault: 'hang' });
      const run = await newRun('die mid-call');
      const dying = new AbortController();
      const first = executeRun(r.rt.deps, run.id, run.claim_token!, { signal: dying.signal });
      await until(() => r.g.openai.calls === 1, 'the model call');
      const fresh = await reclaim(run.id);
      dying.abort(new Error('process killed')); // the old executor's writes are now fenced
      await first;
      const step = await r.g.core.db.one<{ status: string }>('SELECT status FROM run_steps WHERE run_id = ? AND seq = 1', [run.id]);
      assert.equal(step!.status, 'started', 'the fenced executor could not record an outcome');
      assert.equal((await r.read(token, agentId, run.id)).body.run.status, 'running');

      r.g.openai.script({ text: 'would be a second charge' });
      await executeRun(r.rt.deps, run.id, fresh);
      assert.equal(r.g.openai.calls, 1, 'never called again');
      const read = await r.read(token, agentId, run.id);
      assert.equal(read.body.run.status, 'failed');
      assert.equal(read.body.run.errorCode, 'ambiguous_provider_call');
      assert.match(read.body.run.error_message, /never recorded/);
      assert.equal(read.body.steps.length, 1);
    });

    test('dies on the second model call: completed steps are kept, the started one is never repeated', async () => {
      r.g.openai.once({ toolCalls: [{ id: 'c1', name: 'http_request', arguments: JSON.stringify({ method: 'GET', url: `${target.origin}/text` }) }] });
      r.g.openai.once({ fault: 'hang' });
      const run = await newRun('two calls');
      const dying = new AbortController();
      const first = executeRun(r.rt.deps, run.id, run.claim_token!, { signal: dying.signal });
      await until(() => r.g.openai.calls === 2, 'the second model call');
      const fresh = await reclaim(run.id);
      dying.abort(new Error('process killed'));
      await first;
      await executeRun(r.rt.deps, run.id, fresh);
      assert.equal(r.g.openai.calls, 2);
      assert.equal(target.requests.length, 1, 'the completed tool step is not repeated either');
      const read = await r.read(token, agentId, run.id);
      assert.deepEqual(read.body.steps.map((s: any) => [s.kind, s.status]), [['model', 'completed'], ['tool', 'completed'], ['model', 'started']]);
      assert.equal(read.body.run.errorCode, 'ambiguous_provider_call');
    });

    test('a step row written `started` directly (no executor at all) is never called', async () => {
      const run = await newRun('ledger only');
      const now = new Date(r.g.fx.clock.now()).toISOString();
      await insertStep(r.g.core.db, run.claim_token!, { run_id: run.id, seq: 1, kind: 'model', status: 'started', name: 'fake/gpt-test', call_id: null, input: '{}', provider: 'openai-compatible', model: 'fake/gpt-test', started_at: now });
      await executeRun(r.rt.deps, run.id, await reclaim(run.id));
      assert.equal(r.g.openai.calls, 0);
      assert.equal((await r.read(token, agentId, run.id)).body.run.errorCode, 'ambiguous_provider_call');
    });

    test('a started tool step is not repeated either (ambiguous_tool_call)', async () => {
      r.g.openai.once({ toolCalls: [{ id: 'c1', name: 'http_request', arguments: JSON.stringify({ method: 'GET', url: `${target.origin}/slow` }) }] });
      target.requests.length = 0;
      const run = await newRun('tool dies');
      const dying = new AbortController();
      const first = executeRun(r.rt.deps, run.id, run.claim_token!, { signal: dying.signal });
      await until(() => target.requests.some((q) => q.url === '/slow'), 'the tool call');
      const fresh = await reclaim(run.id);
      dying.abort(new Error('process killed'));
      await first;
      await executeRun(r.rt.deps, run.id, fresh);
      assert.equal(target.requests.filter((q) => q.url === '/slow').length, 1);
      assert.equal(r.g.openai.calls, 1);
      assert.equal((await r.read(token, agentId, run.id)).body.run.errorCode, 'ambiguous_tool_call');
    });

    test('an executor holding a stale claim token does nothing at all', async () => {
      const run = await newRun('stale');
      await reclaim(run.id);
      await executeRun(r.rt.deps, run.id, run.claim_token!);
      assert.equal(r.g.openai.calls, 0);
      assert.equal((await r.read(token, agentId, run.id)).body.steps.length, 0);
    });

    test('in-request start: the run and its first ledger row are committed before the provider sees the call', async () => {
      // The start writes the run and the first model call's ledger row in one transaction; it must
      // have committed by the time the call reaches the provider. A second connection sees only
      // committed rows (SQLite: its own snapshot; PostgreSQL: another pool).
      r.g.openai.script({ fault: 'hang' });
      const text = `ledger first ${store}`;
      const pending = r.start(token, agentId, { inputText: text });
      await until(() => r.g.openai.calls === 1, 'the model call');
      const other = await openDb(r.g.core.config);
      try {
        const steps = await other.all<{ seq: number; kind: string; status: string; run_status: string }>(
          'SELECT s.seq, s.kind, s.status, r.status AS run_status FROM run_steps s JOIN runs r ON r.id = s.run_id WHERE r.input_text = ?',
          [text],
        );
        assert.deepEqual(steps.map((x) => ({ ...x, seq: Number(x.seq) })), [{ seq: 1, kind: 'model', status: 'started', run_status: 'running' }]);
        const events = await other.all<{ kind: string }>('SELECT e.kind FROM run_events e JOIN runs r ON r.id = e.run_id WHERE r.input_text = ? ORDER BY e.seq', [text]);
        assert.deepEqual(events.map((e) => e.kind), ['run.created', 'run.started', 'step.started']);
      } finally {
        await other.close();
      }
      r.g.fx.clock.advance(15 * MINUTE + 2_000); // ends the hanging run (execution limit)
      const res = await pending;
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.status, 'timed_out');
    });
  });
}
