// What an operator reads when `svc serve` starts or cannot: one human line naming the address and
// the next step, and refusals that name the variable or file, the cause and the fix.
import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { cleanEnv, ensureBuilt, freePort, isolatedBinary, runSync, start, stop, type Sandbox } from '../helpers/binary.ts';

let sb: Sandbox;
beforeAll(() => {
  ensureBuilt();
  sb = isolatedBinary();
});
afterAll(() => sb.cleanup());

async function firstLines(run: ReturnType<typeof start>, pattern: RegExp, ms = 20_000): Promise<string> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (pattern.test(run.output())) return run.output();
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ${pattern} in:\n${run.output()}`);
}

describe('svc serve messages', () => {
  test('start: one human line with the address and, on an empty store, where to create the owner', async () => {
    const port = await freePort();
    const run = start(sb, ['serve'], cleanEnv(sb.home, { PORT: String(port) }));
    try {
      const out = await firstLines(run, /svc: listening on/);
      assert.match(out, new RegExp(`svc: listening on http://127\\.0\\.0\\.1:${port} \\(sqlite\\) — open http://localhost:${port}/sign-up to create the owner account`));
    } finally {
      await stop(run);
    }
  });

  test('a taken port names the port, the variable and the fix', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = runSync(sb, ['serve'], cleanEnv(sb.home, { PORT: String(port) }));
      assert.equal(r.status, 1);
      assert.match(r.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use \\(PORT=${port}\\).*set PORT to a free port`));
      assert.doesNotMatch(r.stderr, /^svc: listen EADDRINUSE/m);
    } finally {
      blocker.close();
    }
  });

  test('PostgreSQL down is a refused connection at host:port, not "the store is busy"', async () => {
    const port = await freePort(); // nothing listens there
    const r = runSync(sb, ['serve'], cleanEnv(sb.home, { SERVICE_STORE: 'postgres', DATABASE_URL: `postgres://u:secretpw@127.0.0.1:${port}/svc`, PORT: '0' }));
    assert.equal(r.status, 1);
    assert.match(r.stderr, new RegExp(`cannot connect to PostgreSQL at 127\\.0\\.0\\.1:${port}/svc \\(DATABASE_URL\\): ECONNREFUSED`));
    assert.doesNotMatch(r.stderr + r.stdout, /secretpw/);
    assert.doesNotMatch(r.stderr, /the store is busy/);
  });

  test('a number variable that is not a number says what it must be', () => {
    const r = runSync(sb, ['serve'], cleanEnv(sb.home, { PORT: 'eighty' }));
    assert.equal(r.status, 1);
    assert.match(r.stderr, /PORT: must be a whole number from 0 to 65535 \(got "eighty"\)/);
    assert.doesNotMatch(r.stderr, /NaN/);
  });

  test('an unwritable data directory names the file, the cause and the variables to change', () => {
    // Root may write anywhere, so a file where the directory should be stands in for a locked one.
    const r = runSync(sb, ['serve'], cleanEnv(sb.home, { SERVICE_DB_PATH: '/proc/version/svc.db', PORT: '0' }));
    assert.equal(r.status, 1);
    assert.match(r.stderr, /\/proc\/version/);
    assert.match(r.stderr, /SERVICE_DB_PATH/);
  });
});
