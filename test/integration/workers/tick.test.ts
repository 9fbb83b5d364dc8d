// `worker.tick` jobs (the scheduler enqueues them): one queued run per (Worker, tick) as the owner,
// input = the template rendered with an empty body; a duplicated tick starts nothing more; a
// disabled or unscheduled Worker's tick is dropped.
import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { enqueue } from '../../../core/queue/repo.ts';
import type { QueueWorker } from '../../../core/queue/worker.ts';
import { startRuns, until, type RunsEnv } from '../runs/setup.ts';

describe('worker.tick', () => {
  let e: RunsEnv;
  let w: QueueWorker;
  beforeAll(async () => {
    e = await startRuns();
    w = e.g.services.queue.worker({ concurrency: 2, leaseMs: 5000, maxIdleMs: 10 });
    void w.start();
  });
  afterAll(async () => {
    await w.stop(1000);
    await e.close();
  });
  const runsOf = (workerId: string) => e.g.core.db.all<{ id: string; status: string; input_text: string; user_id: string }>('SELECT * FROM runs WHERE worker_id = ?', [workerId]);
  const tick = (workerId: string, t: string, key = `tick:${workerId}:${t}`) => enqueue(e.g.core.db, { kind: 'worker.tick', payload: { workerId, tick: t }, uniqueKey: key }, e.g.core.clock.now());
  const jobsDone = async () => Number((await e.g.core.db.one<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE kind = 'worker.tick' AND status <> 'done'"))?.n) === 0;

  test('a tick queues one run as the owner; the same tick again (a second leader) starts nothing more', async () => {
    const agent = await e.agent(e.g.people.member);
    e.g.openai.script({ text: 'scheduled', usage: { input: 1, output: 1 } });
    const wk = (await e.app(e.g.people.member, 'POST', '/api/app/workers', { name: 't', agentId: agent, inputTemplate: 'Daily report{{body}}', schedule: '0 9 * * *' })).body;
    await tick(wk.id, '2026-01-01T09:00Z');
    await tick(wk.id, '2026-01-01T09:00Z', 'other-key'); // slips past the unique key: the run id still dedupes
    await until(jobsDone, 'tick jobs');
    await until(async () => (await runsOf(wk.id)).every((r) => r.status === 'completed'), 'the run');
    const runs = await runsOf(wk.id);
    assert.equal(runs.length, 1);
    assert.deepEqual([runs[0]!.input_text, runs[0]!.user_id], ['Daily report', e.g.people.member.userId]);
    await tick(wk.id, '2026-01-02T09:00Z');
    await until(async () => (await runsOf(wk.id)).length === 2, 'the next tick');
  });

  test('disabled or unscheduled Workers: the tick is dropped', async () => {
    const agent = await e.agent(e.g.people.member);
    const off = (await e.app(e.g.people.member, 'POST', '/api/app/workers', { name: 'off', agentId: agent, inputTemplate: 'x', schedule: '* * * * *', enabled: false })).body;
    const unscheduled = (await e.app(e.g.people.member, 'POST', '/api/app/workers', { name: 'u', agentId: agent, inputTemplate: 'x' })).body;
    await tick(off.id, 'a');
    await tick(unscheduled.id, 'a');
    await until(jobsDone, 'tick jobs');
    assert.equal((await runsOf(off.id)).length, 0);
    assert.equal((await runsOf(unscheduled.id)).length, 0);
  });
});
