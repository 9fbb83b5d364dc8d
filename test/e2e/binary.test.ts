// End to end through the built binary: dist/svc copied alone into an empty directory and run with an
// empty HOME and a bare PATH, as a user would after copying it to another machine.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, test } from 'vitest';
import {
  cleanEnv,
  ensureBuilt,
  freePort,
  isolatedBinary,
  repoRoot,
  runSync,
  start,
  stop,
  waitForStatus,
  type Sandbox,
} from '../helpers/binary.ts';
import { createScratchDatabase, type ScratchDatabase } from '../helpers/pgdb.ts';

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
const migrationNames = (dialect: string) =>
  readdirSync(join(repoRoot, 'migrations', dialect))
    .filter((f) => f.endsWith('.sql'))
    .map((f) => f.replace(/\.sql$/, ''));

let sb: Sandbox;
beforeAll(() => {
  ensureBuilt();
  sb = isolatedBinary();
});
afterAll(() => sb?.cleanup());

describe('svc binary: commands', () => {
  test('--version prints the package version', () => {
    const r = runSync(sb, ['--version']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), pkg.version);
  });

  test('--help lists serve, migrate and doctor', () => {
    const r = runSync(sb, ['--help']);
    assert.equal(r.status, 0, r.stderr);
    for (const sub of ['serve', 'migrate', 'doctor']) assert.match(r.stdout, new RegExp(`^\\s+${sub}\\b`, 'm'));
  });

  for (const sub of ['serve', 'migrate', 'doctor']) {
    test(`${sub} --help describes ${sub}`, () => {
      const r = runSync(sb, [sub, '--help']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`^Usage: svc ${sub}`, 'm'));
    });
  }

  test('old unpacked builds in the cache are pruned after a week; recent ones and ours are kept', () => {
    const root = join(sb.home, '.cache', 'svc');
    assert.equal(runSync(sb, ['--version']).status, 0);
    const ours = readdirSync(root).filter((n) => /^[0-9a-f]{16}$/.test(n));
    assert.equal(ours.length, 1);
    const old = join(root, '0123456789abcdef');
    const recent = join(root, 'fedcba9876543210');
    for (const d of [old, recent]) mkdirSync(d, { recursive: true });
    const eightDaysAgo = new Date(Date.now() - 8 * 86_400_000);
    utimesSync(old, eightDaysAgo, eightDaysAgo);
    utimesSync(join(root, ours[0]!), eightDaysAgo, eightDaysAgo);
    assert.equal(runSync(sb, ['--version']).status, 0);
    assert.equal(existsSync(old), false, 'a build untouched for a week is removed');
    assert.equal(existsSync(recent), true, 'a recently used build is kept (its process may still run)');
    assert.equal(existsSync(join(root, ours[0]!)), true, 'our own build is kept and touched');
  });

  // The ink view only renders on a terminal; `script` (util-linux, always on Debian) gives the
  // binary a pseudo-terminal. It once failed in the bundle only ("o is not a function": react's
  // named exports do not exist when esbuild bundles an import() of CommonJS).
  test('doctor on a terminal renders its ink view', () => {
    const r = spawnSync('script', ['-qec', './svc doctor', '/dev/null'], {
      cwd: sb.dir,
      env: cleanEnv(sb.home, { TERM: 'xterm' }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.doesNotMatch(r.stdout, /svc: /, r.stdout);
    for (const check of ['config', 'data-dir', 'store']) assert.match(r.stdout, new RegExp(`${check}\\s`), r.stdout);
    assert.ok(r.status === 0 || r.status === 1, `doctor exits 0 (healthy) or 1, got ${r.status}:\n${r.stdout}`);
  });

  test('an unknown command fails with a message', () => {
    const r = runSync(sb, ['no-such-command']);
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /unknown command/);
  });
});

/** Starts `svc serve`, checks liveness and readiness, then SIGTERM must give a clean exit. */
async function serveAndStop(env: Record<string, string>): Promise<void> {
  const port = await freePort();
  const run = start(sb, ['serve'], { ...env, PORT: String(port) });
  try {
    const health = await waitForStatus(run, `http://127.0.0.1:${port}/api/health`);
    assert.ok(health.headers.get('x-request-id'), 'health answers carry x-request-id');
    await waitForStatus(run, `http://127.0.0.1:${port}/api/health/ready`);
  } catch (err) {
    run.child.kill('SIGKILL');
    throw err;
  }
  const code = await stop(run);
  assert.equal(code, 0, `exit after SIGTERM should be 0:\n${run.output()}`);
}

function assertStatusListsAll(env: Record<string, string>, dialect: string): void {
  const r = runSync(sb, ['migrate', '--status'], env);
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  const names = migrationNames(dialect);
  assert.ok(names.length > 0);
  // serve has applied them all, so each line must say so.
  for (const file of names) {
    assert.match(r.stdout, new RegExp(`^.*\\bapplied\\b.*\\b${file}\\b.*$`, 'm'), `status lists ${file} as applied:\n${r.stdout}`);
  }
}

describe('svc binary: SQLite (default location under an empty HOME)', () => {
  test('serve answers health and readiness, then exits 0 on SIGTERM', async () => {
    await serveAndStop(cleanEnv(sb.home));
    assert.ok(existsSync(join(sb.home, '.local/share/svc/svc.db')), 'database created at the documented default path');
  });

  test('migrate --status lists every migration', () => {
    assertStatusListsAll(cleanEnv(sb.home), 'sqlite');
  });
});

describe('svc binary: PostgreSQL', () => {
  let db: ScratchDatabase;
  beforeAll(async () => {
    db = await createScratchDatabase('svc_e2e');
  });
  afterAll(async () => db?.drop());
  const env = () => cleanEnv(sb.home, { SERVICE_STORE: 'postgres', DATABASE_URL: db.url });

  test('serve answers health and readiness, then exits 0 on SIGTERM', async () => {
    await serveAndStop(env());
  });

  test('migrate --status lists every migration', () => {
    assertStatusListsAll(env(), 'postgres');
  });
});
