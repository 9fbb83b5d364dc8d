// PostgreSQL: while queued runs execute on 3 `svc worker` processes, terminate every connection to
// the store's database over and over (pg_terminate_backend) and restart the PostgreSQL server once —
// a private server started for this test. Same guarantees as the kill test: 0 runs lost, 0 provider
// calls repeated, every run terminal. Sizes: 240 runs; 1,000 with SVC_FAULT_FULL=1.
import { afterAll, test } from 'vitest';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createScratchDatabase } from '../helpers/pgdb.ts';
import { startPrivatePostgres } from '../helpers/private-postgres.ts';
import { size, sleep } from './harness.ts';
import { runScenario, summary, type FaultContext } from './scenario.ts';

// The server this test restarts is its own, never the machine's shared one.
const server = await startPrivatePostgres();
afterAll(() => server.stop());
const ADMIN_URL = server.adminUrl;

async function pgUp(): Promise<boolean> {
  const c = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 1000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

async function waitUp(): Promise<void> {
  for (let i = 0; i < 40 && !(await pgUp()); i++) await sleep(250);
}

async function terminateAll(db: string): Promise<number> {
  const c = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 1000 });
  try {
    await c.connect();
    const r = await c.query('SELECT COUNT(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [db]);
    return r.rows[0].n as number;
  } catch {
    return 0; // the server is restarting
  } finally {
    await c.end().catch(() => {});
  }
}

async function hurt(ctx: FaultContext, db: string): Promise<Record<string, number>> {
  let terminated = 0;
  let rounds = 0;
  let restarts = 0;
  let restartMs = 0;
  await ctx.startsDone; // the faults land while the runs execute
  while (!ctx.finished()) {
    await sleep(300 + Math.random() * 300);
    if (ctx.finished()) break;
    rounds++;
    if (rounds === 4) {
      const t0 = performance.now();
      server.restart();
      await waitUp();
      restartMs = performance.now() - t0;
      restarts++;
      continue;
    }
    terminated += await terminateAll(db);
  }
  return { rounds, terminatedConnections: terminated, serverRestarts: restarts, restartMs: Math.round(restartMs) };
}

test('PostgreSQL: connections terminated repeatedly and one server restart while runs execute', { timeout: 170_000 }, async () => {
  const scratch = await createScratchDatabase('svc_fault_pg', ADMIN_URL);
  try {
    const runs = size(240, 1000);
    const r = await runScenario({
      databaseUrl: scratch.url, runs, workers: 3, concurrency: 2, latencyMs: 250, settleMs: size(90_000, 240_000),
      fault: (ctx) => hurt(ctx, scratch.name),
    });
    console.log(`postgres faults (${runs} runs): ${summary(r)}`);
    for (const e of r.exits) console.log(e);
    assert.equal(r.faults.serverRestarts, 1, 'the server was restarted once while runs executed');
    assert.ok(r.faults.terminatedConnections! > 0);
    assert.equal(r.accepted.length, runs, JSON.stringify(r.refused));
    assert.deepEqual(r.acct.missing, [], 'runs lost');
    assert.deepEqual(r.acct.nonTerminal, [], 'runs not terminal');
    assert.deepEqual(r.repeated, [], 'provider calls repeated');
    assert.equal(r.completedWithoutCall, 0);
    // As with killed workers, the only failure a fault may cause is the ambiguous provider call;
    // a dropped connection anywhere else is retried (this caught runs ending as provider_invalid).
    const failed = (r.acct.byStatus.failed ?? 0) + (r.acct.byStatus.timed_out ?? 0);
    assert.equal(failed, r.acct.byError.ambiguous_provider_call ?? 0, `failures other than ambiguous calls: ${JSON.stringify(r.acct.byError)}`);
    // A lost connection is an error to retry, never the end of a worker process.
    assert.deepEqual(r.exits, [], 'workers exited on their own');
  } finally {
    await scratch.drop();
  }
});
