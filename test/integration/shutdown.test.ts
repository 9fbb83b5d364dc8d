// `svc serve` from source in a child process: start, serve, stop on signals, on both stores.
import { afterAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { freePort, repoRoot, waitForStatus, type Running } from '../helpers/binary.ts';
import { createScratchDatabase } from '../helpers/pgdb.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempHome(): string {
  const d = mkdtempSync(join(tmpdir(), 'svc-serve-'));
  dirs.push(d);
  return d;
}

function serve(env: Record<string, string>, args: string[] = []): Running {
  const child = spawn(process.execPath, ['cli/main.ts', 'serve', ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SERVICE_HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  // No child outlives the test run, whatever an assertion does.
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  void exited.then(() => clearTimeout(timer));
  return { child, output: () => out, exited };
}

function logLines(run: Running): Array<Record<string, unknown>> {
  return run
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function waitForLine(run: Running, msg: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (logLines(run).some((l) => l.msg === msg)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no "${msg}" log line\n${run.output()}`);
}

/** A connection whose request is still arriving: the server must treat it as in flight. */
function halfSentRequest(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => {
      s.write('GET /api/health HTTP/1.1\r\nHost: localhost\r\n');
      resolve(s);
    });
    s.on('error', () => {}); // cut by the server at the deadline
    s.once('error', reject);
  });
}

describe('svc serve on SQLite', () => {
  test('applies migrations, serves, and drains in-flight connections up to the deadline on SIGTERM', async () => {
    const home = tempHome();
    const port = await freePort();
    const dbPath = join(home, 'data', 'svc.db');
    const run = serve({ HOME: home, PORT: String(port), SERVICE_DB_PATH: dbPath, SERVICE_SHUTDOWN_TIMEOUT_MS: '800' });
    const base = `http://127.0.0.1:${port}`;
    await waitForStatus(run, `${base}/api/health`);
    assert.equal((await fetch(`${base}/api/health/ready`)).status, 200);

    const pending = await halfSentRequest(port);
    const t0 = Date.now();
    run.child.kill('SIGTERM');
    const code = await run.exited;
    const took = Date.now() - t0;
    pending.destroy();
    assert.equal(code, 0, run.output());
    assert.ok(took >= 700, `waited for the in-flight connection (${took} ms)`);
    const lines = logLines(run);
    assert.ok(lines.some((l) => l.msg === 'listening' && l.store === 'sqlite' && l.port === port));
    assert.ok(lines.some((l) => l.msg === 'stopping' && l.signal === 'SIGTERM'));
    const stopped = lines.find((l) => l.msg === 'stopped');
    assert.ok(stopped, run.output());
    assert.equal(stopped.forced, true);

    // The store was closed cleanly: the file opens, checks out, and holds the applied schema.
    const db = new Database(dbPath, { readonly: true });
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      const n = db.prepare('SELECT count(*) AS n FROM schema_migrations').get() as { n: number };
      assert.ok(n.n >= 1);
    } finally {
      db.close();
    }
  });

  test('a second signal exits at once, without waiting for the drain', async () => {
    const home = tempHome();
    const port = await freePort();
    const run = serve({ HOME: home, PORT: String(port), SERVICE_DB_PATH: join(home, 'svc.db'), SERVICE_SHUTDOWN_TIMEOUT_MS: '30000' });
    await waitForStatus(run, `http://127.0.0.1:${port}/api/health`);
    const pending = await halfSentRequest(port);
    run.child.kill('SIGTERM');
    await waitForLine(run, 'stopping');
    const t0 = Date.now();
    run.child.kill('SIGINT');
    const code = await run.exited;
    pending.destroy();
    assert.equal(code, 130, run.output());
    assert.ok(Date.now() - t0 < 5000);
    assert.ok(logLines(run).some((l) => l.msg === 'second signal; exiting without waiting'));
  });

  test('--no-migrate refuses to start while migrations are pending', async () => {
    const home = tempHome();
    const run = serve({ HOME: home, PORT: String(await freePort()), SERVICE_DB_PATH: join(home, 'svc.db') }, ['--no-migrate']);
    assert.equal(await run.exited, 1);
    assert.match(run.output(), /migration\(s\) pending .*svc migrate/);
    assert.ok(!logLines(run).some((l) => l.msg === 'listening'));
  });

  test('a configuration error names every problem and exits 1', async () => {
    const home = tempHome();
    const run = serve({ HOME: home, PORT: 'eighty', SERVICE_STORE: 'postgres' });
    assert.equal(await run.exited, 1);
    assert.match(run.output(), /PORT/);
    assert.match(run.output(), /DATABASE_URL: required/);
  });
});

describe('svc serve on PostgreSQL', () => {
  test('migrates a fresh database, serves, and exits 0 on SIGTERM without logging the URL', async () => {
    const scratch = await createScratchDatabase('svc_serve');
    try {
      // trust auth ignores the password; it is there to prove it never reaches the log.
      const url = new URL(scratch.url);
      url.password = 'pw-must-not-leak';
      const home = tempHome();
      const port = await freePort();
      const run = serve({ HOME: home, PORT: String(port), SERVICE_STORE: 'postgres', DATABASE_URL: url.toString() });
      const base = `http://127.0.0.1:${port}`;
      await waitForStatus(run, `${base}/api/health`);
      const ready = await fetch(`${base}/api/health/ready`);
      assert.equal(ready.status, 200);
      assert.deepEqual(await ready.json(), { status: 'ready', checks: { store: 'ok', migrations: 'ok' } });

      run.child.kill('SIGTERM');
      assert.equal(await run.exited, 0, run.output());
      const lines = logLines(run);
      assert.ok(lines.some((l) => l.msg === 'listening' && l.store === 'postgres'));
      const stopped = lines.find((l) => l.msg === 'stopped');
      assert.ok(stopped, run.output());
      assert.equal(stopped.forced, false);
      assert.doesNotMatch(run.output(), /pw-must-not-leak/);

      const client = new pg.Client({ connectionString: scratch.url });
      await client.connect();
      try {
        const r = await client.query<{ n: string }>('SELECT count(*) AS n FROM schema_migrations');
        assert.ok(Number(r.rows[0]!.n) >= 1);
      } finally {
        await client.end();
      }
    } finally {
      await scratch.drop();
    }
  });
});
