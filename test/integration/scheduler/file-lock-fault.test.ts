// FAULT TEST (real processes): two `svc worker` processes in file-lock mode on one SQLite store.
// Exactly one schedules; kill -9 it and the other takes over once the lock goes stale (10 s);
// no tick is offered by both, and every tick's jobs exist exactly once. A short tick interval
// (SERVICE_SCHEDULER_TICK_MS=250) gives many ticks in a few seconds.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, test } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig, resolveSecrets } from '../../../core/kernel/config/index.ts';
import { MAINTENANCE_KINDS } from '../../../core/scheduler/maintenance.ts';
import { migrate, openDb } from '../../../core/store/index.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const TICK_MS = 250;
const STALE_MS = 10_000; // FileLockElector's default
const RETRY_MS = 500;

interface Child {
  name: string;
  proc: ChildProcess;
  lines: Array<Record<string, unknown> & { at: number }>;
  exited: Promise<number | null>;
}

const dir = mkdtempSync(join(tmpdir(), 'svc-sched-fault-'));
const env: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  HOME: dir,
  SERVICE_STORE: 'sqlite',
  SERVICE_DB_PATH: join(dir, 'svc.db'),
  SERVICE_SCHEDULER_LEADER_MODE: 'file-lock',
  SERVICE_SCHEDULER_LOCK_PATH: join(dir, 'scheduler.lock'),
  SERVICE_SCHEDULER_TICK_MS: String(TICK_MS),
  SERVICE_LOG_LEVEL: 'debug',
};
const children: Child[] = [];
afterAll(() => {
  for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function spawnWorker(name: string): Child {
  const proc = spawn(process.execPath, ['cli/main.ts', 'worker', '--concurrency', '2', '--stop-timeout', '2000'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const c: Child = { name, proc, lines: [], exited: new Promise((r) => proc.on('exit', (code) => r(code))) };
  let buf = '';
  proc.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        c.lines.push({ ...(JSON.parse(line) as Record<string, unknown>), at: Date.now() });
      } catch {
        // not a log line
      }
    }
  });
  proc.stderr!.on('data', (d: Buffer) => process.stderr.write(`[${name}] ${d}`));
  children.push(c);
  return c;
}

const leadings = (c: Child) => c.lines.filter((l) => l.msg === 'scheduler leading');
const ticks = (c: Child) => c.lines.filter((l) => l.msg === 'scheduler tick').map((l) => String(l.tick));

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(20);
  }
}

test('two scheduler processes in file-lock mode: one schedules; after kill -9 the other takes over within the stale period; no tick fired twice', { timeout: 60_000 }, async () => {
  const { config } = loadConfig(env);
  resolveSecrets(config); // generate the development secrets once, before two processes race for the file
  const setup = await openDb(config);
  await migrate(setup);
  await setup.close();

  const a = spawnWorker('A');
  const b = spawnWorker('B');
  await until(() => leadings(a).length + leadings(b).length > 0, 20_000, 'a leader');
  await sleep(2000);
  const [leader, standby] = leadings(a).length > 0 ? [a, b] : [b, a];
  assert.equal(leadings(leader).length, 1);
  assert.equal(leadings(standby).length, 0, 'exactly one process leads');
  assert.deepEqual(ticks(standby), [], 'the standby offers no tick');
  const before = ticks(leader).length;
  // 8 slots in 2 s; a loaded machine may skip a slot (the next tick is the next boundary after a slow one).
  assert.ok(before >= 2000 / TICK_MS / 2, `the leader ticked ${before} times in 2 s`);

  // kill -9: no release, the lock stays on disk until it goes stale.
  const killedAt = Date.now();
  leader.proc.kill('SIGKILL');
  await leader.exited;
  await until(() => leadings(standby).length > 0, STALE_MS + 10_000, 'the standby to take over');
  const takeover = leadings(standby)[0]!.at - killedAt;
  process.stdout.write(`# takeover after kill -9: ${takeover} ms (stale ${STALE_MS} ms, retry ${RETRY_MS} ms)\n`);
  assert.ok(takeover <= STALE_MS + RETRY_MS + 2000, `took over ${takeover} ms after the kill`);
  assert.ok(takeover >= STALE_MS - 3000, `not before the lock could be stale (${takeover} ms)`);
  await sleep(1500);

  // A clean stop releases the lock.
  standby.proc.kill('SIGTERM');
  assert.equal(await standby.exited, 0);
  assert.equal(existsSync(env.SERVICE_SCHEDULER_LOCK_PATH!), false, 'lock released on SIGTERM');

  // No tick offered by both processes.
  const offeredByKilled = new Set(ticks(leader));
  const both = ticks(standby).filter((t) => offeredByKilled.has(t));
  assert.deepEqual(both, [], 'no tick offered by both');

  // In the store: each (schedule, tick) exactly once, and every tick has its full set of jobs.
  const db = await openDb(config);
  try {
    const rows = await db.all<{ unique_key: string; n: number }>("SELECT unique_key, COUNT(*) AS n FROM jobs WHERE unique_key LIKE 'sched:%' GROUP BY unique_key");
    assert.ok(rows.every((r) => Number(r.n) === 1));
    const byTick = new Map<string, number>();
    for (const r of rows) {
      const kind = MAINTENANCE_KINDS.find((k) => r.unique_key.startsWith(`sched:${k}:`))!;
      const tick = r.unique_key.slice(`sched:${kind}:`.length);
      byTick.set(tick, (byTick.get(tick) ?? 0) + 1);
    }
    for (const [tick, n] of byTick) assert.equal(n, MAINTENANCE_KINDS.length, `tick ${tick}`);
    const times = [...byTick.keys()].map((t) => Date.parse(t)).sort((x, y) => x - y);
    // Ticks on tick boundaries with one long gap: the failover. Other gaps are a slot or two that a
    // loaded machine skipped (a tick that ends past the next boundary waits for the one after).
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    assert.ok(gaps.every((g) => g > 0 && g % TICK_MS === 0), `ticks on ${TICK_MS} ms boundaries: ${JSON.stringify(gaps)}`);
    const long = gaps.filter((g) => g >= STALE_MS / 2);
    assert.equal(long.length, 1, `one long gap (the failover), got ${JSON.stringify(gaps)}`);
    assert.ok(long[0]! <= takeover + TICK_MS, `gap ${long[0]} ms ≈ the takeover time (${takeover} ms)`);
    assert.ok(gaps.filter((g) => g !== TICK_MS).length <= 1 + gaps.length / 4, `mostly consecutive ticks: ${JSON.stringify(gaps)}`);
    // The survivor ran the maintenance jobs too (it is also a queue worker).
    const done = await db.one<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE kind LIKE 'maintenance.%' AND status = 'done'");
    assert.ok(Number(done!.n) > 0);
    process.stdout.write(`# ticks: ${times.length} (${before}+ before the kill), each with ${MAINTENANCE_KINDS.length} jobs, none twice\n`);
  } finally {
    await db.close();
  }
});
