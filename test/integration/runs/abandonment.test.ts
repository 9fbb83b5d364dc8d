// SPEC: "a status read more than twenty minutes after the run started, and it is still running →
// timed_out, error code run_abandoned". A dead executor is simulated by writing a running run the
// way the start path does (insertNewRun) and never executing it. Then the race: an executor
// finishing and a read closing the run at the same moment — exactly one of them wins.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, test } from 'vitest';
import { executeRun } from '../../../core/runs/executor.ts';
import { insertNewRun, prepareRun } from '../../../core/runs/start.ts';
import type { RunRow } from '../../../core/runs/types.ts';
import { MINUTE, startRuns, until, type RunsEnv } from './setup.ts';

describe('abandoned runs (SQLite)', () => {
  let r: RunsEnv;
  let token: string;
  let agentId: string;
  let userId: string;

  beforeAll(async () => {
    r = await startRuns();
    token = await r.token(r.g.people.member);
    agentId = await r.agent(r.g.people.member);
    userId = r.g.people.member.userId;
  });
  afterAll(() => r.close());
  beforeEach(() => r.g.openai.reset());

  /** A run row left `running` by an executor that died (nothing will ever finish it). */
  async function orphan(text = 'orphan'): Promise<RunRow> {
    const input = { agentId, userId, inputText: text };
    const version = await prepareRun(r.rt.deps, input);
    return insertNewRun(r.rt.deps, version, input, { status: 'running', durable: false });
  }
  const row = (id: string) => r.g.core.db.one<RunRow>('SELECT * FROM runs WHERE id = ?', [id]);

  test('read at 19:59 and at exactly 20:00 leaves it running; a read after 20:00 → timed_out, run_abandoned', async () => {
    const run = await orphan();
    r.g.fx.clock.advance(20 * MINUTE - 1_000);
    let read = await r.read(token, agentId, run.id);
    assert.equal(read.status, 200);
    assert.equal(read.body.run.status, 'running');
    assert.equal(read.body.run.errorCode, null);
    r.g.fx.clock.advance(1_000);
    assert.equal((await r.read(token, agentId, run.id)).body.run.status, 'running', '20:00 is not "more than twenty minutes"');
    r.g.fx.clock.advance(1);
    read = await r.read(token, agentId, run.id);
    assert.equal(read.body.run.status, 'timed_out');
    assert.equal(read.body.run.errorCode, 'run_abandoned');
    assert.match(read.body.run.error_message, /20 minutes/);
    assert.ok(read.body.run.finishedAt);
    assert.equal(read.body.events.at(-1).kind, 'run.timed_out');
    // Idempotent: later reads change nothing and add no second event.
    r.g.fx.clock.advance(MINUTE);
    const again = await r.read(token, agentId, run.id);
    assert.deepEqual(again.body, read.body);
    assert.equal(r.g.openai.calls, 0);
  });

  test('listing closes abandoned runs too; a finished run is never touched', async () => {
    const run = await orphan('listed');
    const done = await r.start(token, agentId, { inputText: 'finished' });
    assert.equal(done.body.status, 'completed');
    r.g.fx.clock.advance(20 * MINUTE + 1);
    const list = await r.list(token, agentId);
    assert.equal(list.status, 200);
    const byId = new Map(list.body.data.map((x: { runId: string }) => [x.runId, x]));
    assert.equal((byId.get(run.id) as any).status, 'timed_out');
    assert.equal((byId.get(run.id) as any).errorCode, 'run_abandoned');
    assert.equal((byId.get(done.body.runId) as any).status, 'completed');
    assert.equal((await row(done.body.runId))!.error_code, null);
  });

  test('another user reading the run id cannot close it (404, still running)', async () => {
    const run = await orphan('mine');
    r.g.fx.clock.advance(25 * MINUTE);
    const other = await r.token(r.g.people.admin);
    assert.equal((await r.read(other, agentId, run.id)).status, 404);
    assert.equal((await row(run.id))!.status, 'running');
    assert.equal((await r.read(token, agentId, run.id)).body.run.status, 'timed_out');
  });

  test('a finishing executor and a read never both win (raced 30 times)', async (t) => {
    // The executor computes its 15-minute deadline when it starts; moving running_since back 21
    // minutes after that makes the read see an abandoned run while the executor still sees a live
    // one, so both try to end it at the same moment.
    const deps = { ...r.rt.deps, watchIntervalMs: 60_000 };
    const outcomes = { completed: 0, abandoned: 0 };
    for (let i = 0; i < 30; i++) {
      r.g.openai.reset();
      const latency = 4;
      r.g.openai.script({ text: `finished ${i}`, latencyMs: latency });
      const run = await orphan(`race ${i}`);
      const executing = executeRun(deps, run.id, run.claim_token!);
      await until(() => r.g.openai.calls === 1, 'the model call');
      const back = new Date(r.g.fx.clock.now() - 21 * MINUTE).toISOString();
      await r.g.core.db.run('UPDATE runs SET running_since = ? WHERE id = ?', [back, run.id]);
      await new Promise((res) => setTimeout(res, Math.max(0, latency - 3 + (i % 7))));
      const [read] = await Promise.all([r.read(token, agentId, run.id), executing]);
      const final = (await row(run.id))!;
      const terminal = read.status === 200 ? (await r.read(token, agentId, run.id)).body.events.filter((e: { kind: string }) => e.kind === 'run.completed' || e.kind === 'run.timed_out') : [];
      assert.equal(terminal.length, 1, `run ${i}: exactly one terminal event (${JSON.stringify(terminal)})`);
      if (final.status === 'completed') {
        outcomes.completed++;
        assert.equal(final.output_text, `finished ${i}`);
        assert.equal(final.error_code, null);
        assert.equal(terminal[0].kind, 'run.completed');
      } else {
        outcomes.abandoned++;
        assert.equal(final.status, 'timed_out');
        assert.equal(final.error_code, 'run_abandoned');
        assert.equal(final.output_text, null, 'the losing executor wrote nothing');
        assert.equal(terminal[0].kind, 'run.timed_out');
        const steps = await r.g.core.db.all<{ status: string }>('SELECT status FROM run_steps WHERE run_id = ?', [run.id]);
        assert.deepEqual(steps.map((s) => s.status), ['started'], 'the fenced executor could not record its result');
      }
      assert.equal(read.body.run.status, final.status, `run ${i}: the read answered the state that stuck`);
    }
    t.annotate(`completed first: ${outcomes.completed}, read first: ${outcomes.abandoned}`);
    assert.equal(outcomes.completed + outcomes.abandoned, 30);
  });
});
