// The queue figures: the job table against plainjob, pickup latency, and runs/s through one worker.
// BENCH_QUEUE_ONLY=jobs: only the job-table rows, for iterating on the job table.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { distBinary, freePort, median, repoRoot, startServer, tempDir, setUpAgent, startFakeUpstream } from './lib.mjs';

export const name = 'queue';
export const description = 'durable queue: job table throughput (vs plainjob), pickup latency, end-to-end runs through one worker';

const JOBS = Number(process.env.BENCH_QUEUE_JOBS ?? 20_000);
const PICKUPS = Number(process.env.BENCH_QUEUE_PICKUPS ?? 200);
const RUNS = Number(process.env.BENCH_QUEUE_RUNS ?? 2000);
const ONLY = process.env.BENCH_QUEUE_ONLY;
const PG_ADMIN = process.env.SVC_TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export async function run() {
  const rows = [];
  const plain = await plainjobRate(JOBS);
  const sqlite = await jobTableRate('sqlite', JOBS);
  rows.push(row('job table, SQLite: enqueue→claim→complete (jobs/s; baseline plainjob)', sqlite, plain, '≥ 10,000', sqlite >= 10_000));
  const pgRate = await withPg((url) => jobTableRate('postgres', Math.min(JOBS, 10_000), url));
  rows.push(row('job table, PostgreSQL: enqueue→claim→complete (jobs/s)', pgRate, undefined, '≥ 3,000', pgRate >= 3000));
  if (ONLY === 'jobs') return rows;
  const lat = await pickup('sqlite');
  rows.push(row('pickup latency 202→running, SQLite, separate worker, p50 (ms)', lat.p50, undefined, '≤ 10 ms', lat.p50 <= 10, `p99 ${lat.p99.toFixed(1)} ms`));
  const latPg = await withPg((url) => pickup('postgres', url));
  rows.push(row('pickup latency 202→running, PostgreSQL, separate worker, p50 (ms)', latPg.p50, undefined, '≤ 10 ms', latPg.p50 <= 10, `p99 ${latPg.p99.toFixed(1)} ms`));
  const e2e = await endToEnd();
  rows.push(row('end-to-end trivial runs through one worker, SQLite (runs/s)', e2e, undefined, '≥ 500', e2e >= 500, `${RUNS} runs, --concurrency 32`));
  return rows;
}

function row(metric, value, baseline, target, ok, note) {
  return { metric, value, ...(baseline === undefined ? {} : { baseline }), target, ok, ...(note ? { note } : {}) };
}

export async function withPg(fn) {
  const dbName = `svc_bench_queue_${Date.now().toString(36)}`;
  const admin = async (sql) => {
    const c = new pg.Client({ connectionString: PG_ADMIN });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE "${dbName}"`);
  const url = new URL(PG_ADMIN);
  url.pathname = `/${dbName}`;
  try {
    return await fn(url.toString());
  } finally {
    await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  }
}

export function plainjobRate(n) {
  return (async () => {
    const { defineQueue, better } = await import('plainjob');
    const home = tempDir('svc-bench-plainjob-');
    const db = new Database(join(home.dir, 'q.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const quiet = { error() {}, warn() {}, info() {}, debug() {} };
    const queue = defineQueue({ connection: better(db), logger: quiet, maintenanceInterval: 3_600_000 });
    try {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) queue.add('noop', { i });
      let done = 0;
      for (;;) {
        const job = queue.getAndMarkJobAsProcessing('noop');
        if (!job) break;
        queue.markJobAsDone(job.id);
        done++;
      }
      const secs = (performance.now() - t0) / 1000;
      if (done !== n) throw new Error(`plainjob processed ${done} of ${n}`);
      return n / secs;
    } finally {
      queue.close();
      db.close();
      home.remove();
    }
  })();
}

/** Concurrent producers, as a web server's requests would be, feed one worker meanwhile. */
const PRODUCERS = Number(process.env.BENCH_QUEUE_PRODUCERS ?? 16);
export async function jobTableRate(store, n, url) {
  const { openDb, migrate } = await import('../../core/store/index.ts');
  const { enqueue } = await import('../../core/queue/repo.ts');
  const { QueueWorker } = await import('../../core/queue/worker.ts');
  const { createLogger } = await import('../../core/kernel/log.ts');
  const home = tempDir('svc-bench-jobs-');
  const log = createLogger('warn');
  const db = await openDb({ SERVICE_STORE: store, dbPath: join(home.dir, 'svc.db'), DATABASE_URL: url, SERVICE_DB_POOL_SIZE: 20, SERVICE_LOG_LEVEL: 'warn' }, { logger: log });
  try {
    await migrate(db);
    let done = 0;
    let resolveAll;
    const all = new Promise((r) => (resolveAll = r));
    const handlers = new Map([['noop', async () => (++done === n && resolveAll(), { done: true })]]);
    const clock = { now: () => Date.now() };
    const { sqliteWake, postgresWake } = await import('../../core/queue/wake.ts');
    const wake = store === 'postgres' ? postgresWake(url, log) : sqliteWake(join(home.dir, 'svc.db'), log);
    const w = new QueueWorker({ db, clock, log, handlers, wake }, { concurrency: 64, leaseMs: 30_000 });
    const t0 = performance.now();
    void w.start();
    let next = 0;
    await Promise.all(Array.from({ length: PRODUCERS }, async () => {
      while (next < n) {
        const i = next++;
        await enqueue(db, { kind: 'noop', payload: { i } }, clock.now());
      }
    }));
    await all;
    const secs = (performance.now() - t0) / 1000;
    await w.stop(5000);
    const [{ c }] = await db.all(`SELECT COUNT(*) AS c FROM jobs WHERE status = 'done'`);
    if (Number(c) !== n) throw new Error(`bench: ${c} of ${n} jobs done`);
    return n / secs;
  } finally {
    await db.close();
    home.remove();
  }
}

function svcEnv(home, store, url) {
  return {
    HOME: home, PATH: '/usr/bin:/bin', NODE_ENV: 'test', SERVICE_LOG_LEVEL: 'warn', RATE_LIMIT_CHAT_PER_MINUTE: '1000000', SERVICE_EMBEDDED_WORKERS: '0',
    SERVICE_PROVIDER_ALLOWED_PRIVATE_HOSTS: '127.0.0.1', // workers call the fake upstream on loopback
    ...(store === 'postgres' ? { SERVICE_STORE: 'postgres', DATABASE_URL: url } : { SERVICE_DB_PATH: join(home, 'svc.db') }),
  };
}

function reader(store, home, url) {
  if (store === 'postgres') {
    const c = new pg.Client({ connectionString: url });
    const ready = c.connect();
    return { all: async (sql, p = []) => (await ready, (await c.query(sql.replace(/\?/g, (() => { let i = 0; return () => `$${++i}`; })()), p)).rows), close: () => c.end() };
  }
  const db = new Database(join(home, 'svc.db'), { readonly: true });
  return { all: async (sql, p = []) => db.prepare(sql).all(...p), close: async () => db.close() };
}

async function pickup(store, url) {
  const home = tempDir('svc-bench-pickup-');
  const fake = await startFakeUpstream();
  let svc;
  let worker;
  try {
    const env = svcEnv(home.dir, store, url);
    svc = await startServer(distBinary, ['serve'], env);
    const origin = `http://127.0.0.1:${svc.port}`;
    const { token, agentId } = await setUpAgent(origin, fake.url);
    worker = spawn(distBinary, ['worker', '--concurrency', '4'], { env, stdio: 'ignore' });
    const r = reader(store, home.dir, url);
    const ids = [];
    const start = async (i) => {
      const res = await fetch(`${origin}/api/agents/${agentId}/runs`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ inputText: `pickup ${i}`, async: true }) });
      if (res.status !== 202) throw new Error(`bench: start answered ${res.status}`);
      return (await res.json()).runId;
    };
    // One start at a time, with the worker idle.
    for (let i = 0; i < 20; i++) await start(i);
    await new Promise((res) => setTimeout(res, 1500));
    for (let i = 0; i < PICKUPS; i++) {
      ids.push(await start(i));
      await new Promise((res) => setTimeout(res, 30)); // idle again before the next
    }
    const deadline = Date.now() + 30_000;
    let rows = [];
    while (Date.now() < deadline) {
      rows = await r.all(`SELECT id, created_at, running_since FROM runs WHERE running_since IS NOT NULL`);
      if (ids.every((id) => rows.some((x) => x.id === id))) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    await r.close();
    const by = new Map(rows.map((x) => [x.id, x]));
    const lat = ids.map((id) => Date.parse(by.get(id).running_since) - Date.parse(by.get(id).created_at)).sort((a, b) => a - b);
    return { p50: median(lat), p99: lat[Math.min(lat.length - 1, Math.floor(lat.length * 0.99))] };
  } finally {
    worker?.kill('SIGKILL');
    await svc?.stop();
    await fake.stop();
    home.remove();
  }
}

async function endToEnd() {
  const home = tempDir('svc-bench-e2e-');
  const fake = await startFakeUpstream();
  let svc;
  let worker;
  try {
    const env = svcEnv(home.dir, 'sqlite');
    svc = await startServer(distBinary, ['serve'], env);
    const origin = `http://127.0.0.1:${svc.port}`;
    const { token, agentId } = await setUpAgent(origin, fake.url);
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (next < RUNS) {
        const i = next++;
        const res = await fetch(`${origin}/api/agents/${agentId}/runs`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ inputText: `e2e ${i}`, async: true }) });
        if (res.status !== 202) throw new Error(`bench: start answered ${res.status}`);
        await res.arrayBuffer();
      }
    }));
    worker = spawn(distBinary, ['worker', '--concurrency', '32'], { env, stdio: 'ignore' });
    const r = reader('sqlite', home.dir);
    const deadline = Date.now() + 120_000;
    for (;;) {
      const [{ n }] = await r.all(`SELECT COUNT(*) AS n FROM runs WHERE status = 'completed'`);
      if (n >= RUNS) break;
      if (Date.now() > deadline) throw new Error(`bench: only ${n} of ${RUNS} runs completed`);
      await new Promise((res) => setTimeout(res, 100));
    }
    const [span] = await r.all(`SELECT MIN(running_since) AS a, MAX(finished_at) AS b FROM runs`);
    await r.close();
    return RUNS / ((Date.parse(span.b) - Date.parse(span.a)) / 1000);
  } finally {
    worker?.kill('SIGKILL');
    await svc?.stop();
    await fake.stop();
    home.remove();
  }
}

