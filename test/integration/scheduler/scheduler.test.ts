// The scheduler against real stores: ticks enqueued once however many schedulers offer them (mode
// off on two instances), Worker cron ticks, the off-mode warning, the leader gauge, and the
// maintenance jobs (overdue runs closed, queued runs untouched, pruning).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { newId } from '../../../core/kernel/ids.ts';
import { createLogger } from '../../../core/kernel/log.ts';
import { insertNewRun, prepareRun } from '../../../core/runs/start.ts';
import { createScheduler } from '../../../core/scheduler/index.ts';
import { AlwaysLeader } from '../../../core/scheduler/leader.ts';
import { closeOverdueRuns, expireInvitations, MAINTENANCE_KINDS, OVERDUE_GRACE_MS, prune } from '../../../core/scheduler/maintenance.ts';
import { Scheduler } from '../../../core/scheduler/scheduler.ts';
import { WORKER_TICK } from '../../../core/scheduler/ticks.ts';
import { MINUTE, startRuns, type RunsEnv } from '../runs/setup.ts';

const iso = (ms: number) => new Date(ms).toISOString();

for (const store of ['sqlite', 'postgres'] as const) {
  describe(`scheduler (${store})`, () => {
    let r: RunsEnv;
    let agentId: string;
    beforeAll(async () => {
      r = await startRuns({ store });
      agentId = await r.agent(r.g.people.member);
    });
    afterAll(() => r.close());

    const db = () => r.g.core.db;
    const now = () => r.g.fx.clock.now();
    const offScheduler = (id: string) =>
      new Scheduler({ db: db(), clock: r.g.fx.clock, log: r.g.core.log, elector: new AlwaysLeader(), id, tickMs: 60_000 });
    async function worker(schedule: string | null, over: { enabled?: number; deleted?: boolean; updatedAt?: number } = {}): Promise<string> {
      const id = newId('wkr');
      const t = iso(over.updatedAt ?? now() - 24 * 3_600_000);
      await db().run(
        `INSERT INTO workers (id, workspace_id, owner_user_id, name, agent_id, input_template, schedule, enabled, created_at, updated_at, deleted_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [id, r.g.people.workspace, r.g.people.member.userId, 'w', agentId, 'hello', schedule, over.enabled ?? 1, t, t, over.deleted ? t : null],
      );
      return id;
    }
    const keysLike = (prefix: string) => db().all<{ unique_key: string; n: number }>('SELECT unique_key, COUNT(*) AS n FROM jobs WHERE unique_key LIKE ? GROUP BY unique_key ORDER BY unique_key', [`${prefix}%`]);

    test('close_overdue_runs: a running run past 15 min + grace → timed_out (execution_time_limit); a queued run waiting an hour is untouched', async () => {
      // First in the suite: the fixture's sessions are valid at the clock's starting time.
      const member = r.g.people.member;
      const input = { agentId, userId: member.userId, inputText: 'orphaned' };
      const version = await prepareRun(r.rt.deps, input);
      // A run left `running` by an executor that died; and a queued run nobody has claimed.
      const orphan = await insertNewRun(r.rt.deps, version, input, { status: 'running', durable: true });
      const token = await r.token(member);
      const queued = await r.start(token, agentId, { inputText: 'waiting', async: true });
      assert.equal(queued.status, 202, queued.text);
      const status = async (id: string) => (await db().one<{ status: string; error_code: string | null }>('SELECT status, error_code FROM runs WHERE id = ?', [id]))!;

      r.g.fx.clock.advance(15 * MINUTE + OVERDUE_GRACE_MS);
      assert.deepEqual(await closeOverdueRuns({ db: db(), clock: r.g.fx.clock, log: r.g.core.log }), [], 'at exactly limit + grace: not yet');
      r.g.fx.clock.advance(1);
      assert.deepEqual(await closeOverdueRuns({ db: db(), clock: r.g.fx.clock, log: r.g.core.log }), [orphan.id]);
      assert.deepEqual(await status(orphan.id), { status: 'timed_out', error_code: 'execution_time_limit' });
      const ev = await db().all<{ kind: string; data: string }>('SELECT kind, data FROM run_events WHERE run_id = ? ORDER BY seq', [orphan.id]);
      assert.equal(ev.at(-1)!.kind, 'run.timed_out');
      assert.equal(JSON.parse(ev.at(-1)!.data).errorCode, 'execution_time_limit');

      r.g.fx.clock.advance(60 * MINUTE);
      assert.deepEqual(await closeOverdueRuns({ db: db(), clock: r.g.fx.clock, log: r.g.core.log }), [], 'idempotent; the queued run is not a candidate');
      assert.equal((await status(queued.body.runId)).status, 'queued', 'a queued run is never failed for waiting');
      // The run API agrees (and its read path does not close a queued run either).
      const read = await r.read(token, agentId, queued.body.runId);
      assert.equal(read.body.run.status, 'queued');
      const closed = await r.read(token, agentId, orphan.id);
      assert.equal(closed.body.run.status, 'timed_out');
      assert.equal(closed.body.run.errorCode, 'execution_time_limit');
    });

    test('two schedulers in mode off offer the same tick at once: each job is enqueued exactly once', async () => {
      await db().run('DELETE FROM workers');
      r.g.fx.clock.set(Date.parse('2026-02-02T10:00:00.004Z'));
      const every5 = await worker('*/5 * * * *');
      const hourly = await worker('0 * * * *');
      const odd = await worker('1-59/2 * * * *');
      await worker('* * * * *', { enabled: 0 });
      await worker('* * * * *', { deleted: true });
      await worker(null);
      const a = offScheduler('a');
      const b = offScheduler('b');
      const t = Date.parse('2026-02-02T10:00:00Z');
      const [ka, kb] = await Promise.all([a.tick(t), b.tick(t)]);
      const all = [...ka, ...kb].sort();
      const expected = [
        ...MAINTENANCE_KINDS.map((k) => `sched:${k}:2026-02-02T10:00:00.000Z`),
        `worker:${every5}:2026-02-02T10:00:00.000Z`,
        `worker:${hourly}:2026-02-02T10:00:00.000Z`,
        // The odd-minute Worker's most recent due minute in the catch-up window (9:59), once.
        `worker:${odd}:2026-02-02T09:59:00.000Z`,
      ].sort();
      assert.deepEqual(all, expected, 'every key inserted by exactly one of the two');
      for (const row of [...(await keysLike('sched:')), ...(await keysLike('worker:'))]) assert.equal(Number(row.n), 1, row.unique_key);
      const tick = await db().one<{ kind: string; payload: string }>('SELECT kind, payload FROM jobs WHERE unique_key = ?', [`worker:${every5}:2026-02-02T10:00:00.000Z`]);
      assert.equal(tick!.kind, WORKER_TICK);
      assert.deepEqual(JSON.parse(tick!.payload), { workerId: every5, tick: '2026-02-02T10:00:00.000Z' });
      // Offered again (a retried tick, a third scheduler): nothing new.
      assert.deepEqual(await a.tick(t), []);
      assert.deepEqual(await offScheduler('c').tick(t), []);

      // 10:01 — only the odd-minute Worker fires, and the maintenance jobs of the new tick.
      r.g.fx.clock.set(Date.parse('2026-02-02T10:01:00.010Z'));
      const next = await a.tick(Date.parse('2026-02-02T10:01:00Z'));
      assert.deepEqual(next.filter((k) => k.startsWith('worker:')), [`worker:${odd}:2026-02-02T10:01:00.000Z`]);
      assert.equal(next.filter((k) => k.startsWith('sched:')).length, 3);
    });

    test('catch-up after downtime is capped to the most recent due tick; a schedule set after a minute does not fire it', async () => {
      await db().run('DELETE FROM workers');
      r.g.fx.clock.set(Date.parse('2026-02-03T12:37:00.002Z'));
      const every10 = await worker('*/10 * * * *');
      // Updated at 12:30:30: its 12:30 tick predates the change.
      const fresh = await worker('30 12 * * *', { updatedAt: Date.parse('2026-02-03T12:30:30Z') });
      // Daily at 03:00: far outside the one-hour catch-up window.
      await worker('0 3 * * *');
      const keys = await offScheduler('late').tick(Date.parse('2026-02-03T12:37:00Z'));
      assert.deepEqual(keys.filter((k) => k.startsWith('worker:')), [`worker:${every10}:2026-02-03T12:30:00.000Z`], `fresh=${fresh}`);
    });

    test('mode off announces itself and warns when another scheduling process is live; the leader gauge follows', async () => {
      const before = r.g.fx.logs.length;
      const a = createScheduler(r.g.core, r.g.services.queueMetrics.leader);
      const b = offScheduler('other-replica');
      a.start();
      b.start();
      const deadline = Date.now() + 5000;
      const warned = () => r.g.fx.logs.slice(before).some((l) => l.level === 'warn' && /SERVICE_SCHEDULER_LEADER_MODE=off with several live scheduling processes/.test(String(l.msg)));
      while (!warned() && Date.now() < deadline) await new Promise((res) => setTimeout(res, 20));
      assert.ok(warned(), 'a WARN names the situation');
      const live = await db().all<{ id: string }>("SELECT id FROM processes WHERE kind = 'scheduler'");
      assert.deepEqual(live.map((p) => p.id).sort(), [a.id, 'other-replica'].sort());
      const gauge = async () => (await r.g.core.metrics.registry.getSingleMetric('svc_scheduler_leader')!.get()).values[0]!.value;
      assert.equal(await gauge(), 1);
      await a.stop();
      await b.stop();
      assert.equal(await gauge(), 0);
      assert.equal((await db().all("SELECT id FROM processes WHERE kind = 'scheduler'")).length, 0, 'rows removed on stop');
    });

    test('one scheduler alone in mode off does not warn', async () => {
      const lines: Array<Record<string, unknown>> = [];
      const log = createLogger('debug', (l) => lines.push(JSON.parse(l) as Record<string, unknown>));
      const s = new Scheduler({ db: db(), clock: r.g.fx.clock, log, elector: new AlwaysLeader(), id: 'alone', tickMs: 60_000 });
      s.start();
      await new Promise((res) => setTimeout(res, 200));
      await s.stop();
      assert.ok(lines.some((l) => l.msg === 'scheduler leading'));
      assert.deepEqual(lines.filter((l) => l.level === 'warn'), []);
    });

    test('the maintenance job kinds are registered with the queue', () => {
      for (const k of MAINTENANCE_KINDS) assert.ok(r.g.services.queue.handlers.has(k), k);
    });

    test('prune and invitation housekeeping delete only what is past its retention', async () => {
      const t0 = Date.parse('2026-04-01T00:00:00Z');
      r.g.fx.clock.set(t0);
      const d = { db: db(), clock: r.g.fx.clock, log: r.g.core.log };
      const DAY = 24 * 3_600_000;
      await db().run('DELETE FROM rate_limit_hits');
      await db().run('INSERT INTO rate_limit_hits (key, at) VALUES (?, ?), (?, ?)', ['old', iso(t0 - 61_000), 'new', iso(t0 - 30_000)]);
      const uid = r.g.people.member.userId;
      await db().run('INSERT INTO sessions (id_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?), (?, ?, ?, ?)', [
        'gone-' + randomBytes(6).toString('hex'), uid, iso(t0 - 10 * DAY), iso(t0 - 1),
        'kept-' + randomBytes(6).toString('hex'), uid, iso(t0 - DAY), iso(t0 + DAY),
      ]);
      const job = (key: string, status: string, finishedAgo: number | null) =>
        db().run(`INSERT INTO jobs (id, kind, payload, unique_key, status, run_at, created_at, finished_at) VALUES (?, 'x', '{}', ?, ?, ?, ?, ?)`, [
          newId('job'), key, status, iso(t0 - 8 * DAY), iso(t0 - 8 * DAY), finishedAgo === null ? null : iso(t0 - finishedAgo),
        ]);
      await job('prune:done-old', 'done', 8 * DAY);
      await job('prune:failed-old', 'failed', 8 * DAY);
      await job('prune:done-recent', 'done', 6 * DAY);
      await job('prune:queued-old', 'queued', null);
      await db().run('INSERT INTO processes (id, kind, hostname, pid, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)', [
        'p-dead', 'scheduler', 'h', 1, iso(t0 - DAY), iso(t0 - 2 * 3_600_000),
        'p-live', 'scheduler', 'h', 2, iso(t0 - DAY), iso(t0 - 1000),
      ]);
      const counts = await prune(d);
      assert.ok(counts.rateLimitHits! >= 1 && counts.sessions! >= 1 && counts.jobs! >= 2 && counts.processes! >= 1, JSON.stringify(counts));
      assert.deepEqual((await db().all<{ key: string }>('SELECT key FROM rate_limit_hits')).map((x) => x.key), ['new']);
      assert.deepEqual((await db().all<{ id_hash: string }>("SELECT id_hash FROM sessions WHERE id_hash LIKE 'gone-%' OR id_hash LIKE 'kept-%'")).map((x) => x.id_hash.slice(0, 4)), ['kept']);
      assert.deepEqual((await keysLike('prune:')).map((x) => x.unique_key), ['prune:done-recent', 'prune:queued-old']);
      assert.deepEqual((await db().all<{ id: string }>("SELECT id FROM processes WHERE id LIKE 'p-%'")).map((x) => x.id), ['p-live']);

      const inv = (id: string, expiresAgo: number, f: { used?: boolean; revokedAgo?: number } = {}) =>
        db().run(
          `INSERT INTO invitations (id, workspace_id, email, role, token_hash, token_preview, created_at, expires_at, used_at, revoked_at)
           VALUES (?, ?, ?, 'member', ?, 'x', ?, ?, ?, ?)`,
          [id, r.g.people.workspace, `${id}@example.com`, randomBytes(16).toString('hex'), iso(t0 - expiresAgo - 7 * DAY), iso(t0 - expiresAgo), f.used ? iso(t0 - 40 * DAY) : null, f.revokedAgo === undefined ? null : iso(t0 - f.revokedAgo)],
        );
      await inv('inv_expired_long', 31 * DAY);
      await inv('inv_expired_recent', 29 * DAY);
      await inv('inv_used_long', 60 * DAY, { used: true });
      await inv('inv_revoked_long', -5 * DAY, { revokedAgo: 31 * DAY });
      await inv('inv_pending', -3 * DAY);
      assert.equal(await expireInvitations(d), 2);
      const left = (await db().all<{ id: string }>("SELECT id FROM invitations WHERE id LIKE 'inv\\_%' ESCAPE '\\' ORDER BY id")).map((x) => x.id);
      assert.deepEqual(left, ['inv_expired_recent', 'inv_pending', 'inv_used_long']);
    });
  });
}
