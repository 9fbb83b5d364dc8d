// 8 worker processes on one job table, 10,000 jobs of a no-op kind (test/fault/noop-worker.ts:
// the real QueueWorker, claim and fenced completion; the handler records each execution in a side
// table): every job claimed and executed exactly once, on SQLite and on PostgreSQL.
// Sizes: 2,000 jobs here, 10,000 with SVC_FAULT_FULL=1.
import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { enqueue } from '../../core/queue/repo.ts';
import { migrate, openDb, type Db } from '../../core/store/index.ts';
import { createScratchDatabase } from '../helpers/pgdb.ts';
import { size, spawnProc } from './harness.ts';

const script = fileURLToPath(new URL('./noop-worker.ts', import.meta.url));

async function exactlyOnce(store: 'sqlite' | 'postgres', target: string, db: Db) {
  const n = size(2000, 10_000);
  await migrate(db);
  await db.exec('CREATE TABLE fault_done (job_id TEXT NOT NULL, worker TEXT NOT NULL, attempt INTEGER NOT NULL)');
  const now = Date.now();
  for (let i = 0; i < n; i += 500) {
    await db.tx(async (q) => {
      for (let j = i; j < Math.min(n, i + 500); j++) await enqueue(q, { kind: 'fault.noop', payload: { j } }, now);
    });
  }
  const t0 = performance.now();
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', FAULT_STORE: store, FAULT_DB: target, FAULT_CONCURRENCY: '4' };
  const workers = Array.from({ length: 8 }, () => spawnProc('noop-worker', process.execPath, [script], env));
  const timer = setTimeout(() => workers.forEach((w) => void w.kill9()), 120_000);
  const codes = await Promise.all(workers.map((w) => w.exited));
  clearTimeout(timer);
  const secs = (performance.now() - t0) / 1000;
  assert.deepEqual(codes, Array(8).fill(0), workers.map((w) => w.output()).join('\n'));

  const twice = await db.all<{ job_id: string; n: number }>('SELECT job_id, COUNT(*) AS n FROM fault_done GROUP BY job_id HAVING COUNT(*) > 1');
  const [done] = await db.all<{ n: number; workers: number }>('SELECT COUNT(DISTINCT job_id) AS n, COUNT(DISTINCT worker) AS workers FROM fault_done');
  const jobs = await db.all<{ status: string; attempts: number; n: number }>(`SELECT status, attempts, COUNT(*) AS n FROM jobs GROUP BY status, attempts`);
  console.log(`claim-once (${store}, ${n} jobs, 8 processes): ${JSON.stringify({ executed: Number(done!.n), workersThatWorked: Number(done!.workers), twice: twice.length, jobs, seconds: Number(secs.toFixed(2)), jobsPerSecond: Math.round(n / secs) })}`);
  assert.deepEqual(twice, [], 'a job was executed twice');
  assert.equal(Number(done!.n), n, 'every job executed');
  assert.deepEqual(jobs.map((j) => ({ ...j, attempts: Number(j.attempts), n: Number(j.n) })), [{ status: 'done', attempts: 1, n }], 'every job done on its first claim');
  assert.ok(Number(done!.workers) >= 2, 'the work was shared between processes');
}

describe('8 worker processes, one job table: each job claimed exactly once', () => {
  test('SQLite', { timeout: 150_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-fault-claim-'));
    const path = join(dir, 'svc.db');
    const db = await openDb({ SERVICE_STORE: 'sqlite', dbPath: path, SERVICE_DB_POOL_SIZE: 1, SERVICE_LOG_LEVEL: 'warn' });
    try {
      await exactlyOnce('sqlite', path, db);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('PostgreSQL', { timeout: 150_000 }, async () => {
    const scratch = await createScratchDatabase('svc_fault_claim');
    const db = await openDb({ SERVICE_STORE: 'postgres', dbPath: '', DATABASE_URL: scratch.url, SERVICE_DB_POOL_SIZE: 4, SERVICE_LOG_LEVEL: 'warn' });
    try {
      await exactlyOnce('postgres', scratch.url, db);
    } finally {
      await db.close();
      await scratch.drop();
    }
  });
});
