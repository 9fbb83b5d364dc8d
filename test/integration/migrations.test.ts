// The migration runner against both stores: fresh apply, idempotence, concurrent migrators (two
// Db instances, and two OS processes), refusal of a database newer than the binary, failure
// rollback, and `svc migrate` / `svc migrate --status` output.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { migrate as migrateCommand } from '../../cli/commands/migrate.ts';
import { knownMigrations, migrate, migrationStatus, MigrationError, type Migration } from '../../core/store/migrations.ts';
import type { Db } from '../../core/store/types.ts';
import { raceMigrations } from '../helpers/race-migrations.ts';
import { DIALECTS, freshDb, type FreshDb } from '../helpers/stores.ts';

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('../helpers/migrate-child.ts', import.meta.url));

async function raceLog(db: Db): Promise<number[]> {
  return (await db.all<{ version: number }>('SELECT version FROM race_log ORDER BY version')).map((r) => Number(r.version));
}

async function hasTable(db: Db, name: string): Promise<boolean> {
  const sql =
    db.dialect === 'sqlite'
      ? "SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?"
      : 'SELECT 1 AS x FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?';
  return (await db.one(sql, [name])) !== undefined;
}

/**
 * Delays every transaction start a little, like a second process being scheduled later. Without
 * it, on SQLite one in-process migrator finishes every migration before the other's timer-based
 * lock wait fires, and the two never actually overlap.
 */
function lagging(db: Db): Db {
  return {
    dialect: db.dialect,
    all: (sql, params) => db.all(sql, params),
    one: (sql, params) => db.one(sql, params),
    run: (sql, params) => db.run(sql, params),
    exec: (sql) => db.exec(sql),
    tx: async (fn) => {
      await sleep(5);
      return db.tx(fn);
    },
    ping: () => db.ping(),
    close: () => db.close(),
  };
}

/** Each migration applied exactly once overall, by exactly one of the migrators. */
function assertAppliedOnce(perMigrator: number[][], expected: number[], log: number[]): void {
  const all = perMigrator.flat().sort((a, b) => a - b);
  assert.deepEqual(all, expected, `migrators applied ${JSON.stringify(perMigrator)}`);
  assert.deepEqual(log, expected, 'a migration body ran more or less than once');
}

for (const dialect of DIALECTS) {
  describe(`migrations [${dialect}]`, () => {
    let store: FreshDb;
    beforeEach(async () => {
      store = await freshDb(dialect);
    });
    afterEach(async () => {
      await store.cleanup();
    });

    it('reports every migration pending on an empty database, without creating anything', async () => {
      const known = knownMigrations(dialect);
      assert.ok(known.length >= 1 && known[0]!.version === 1 && known[0]!.name === 'init');
      const s = await migrationStatus(store.db);
      assert.deepEqual(s, {
        current: 0,
        latest: known.at(-1)!.version,
        pending: known.map(({ version, name }) => ({ version, name })),
        applied: [],
        newerThanBinary: false,
      });
      assert.equal(await hasTable(store.db, 'schema_migrations'), false);
    });

    it('applies every migration on a fresh database, then re-applying is a no-op', async () => {
      const known = knownMigrations(dialect);
      const applied = await migrate(store.db);
      assert.deepEqual(applied, known.map(({ version, name }) => ({ version, name })));
      const s = await migrationStatus(store.db);
      assert.equal(s.current, s.latest);
      assert.deepEqual(s.pending, []);
      // 0001_init's tables exist with their columns.
      await store.db.run('INSERT INTO instance (id, created_at) VALUES (?, ?)', ['inst_1', new Date().toISOString()]);
      await store.db.run(
        'INSERT INTO processes (id, kind, hostname, pid, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)',
        ['p1', 'serve', 'host', 123, 't', 't'],
      );

      assert.deepEqual(await migrate(store.db), []);
      assert.deepEqual((await migrationStatus(store.db)).applied, s.applied, 'applied_at rows unchanged');
    });

    it('two concurrent migrators (two Db instances) apply each migration exactly once', async () => {
      const set = raceMigrations(dialect);
      const other = store.reopen();
      const [a, b] = await Promise.all([migrate(lagging(store.db), { migrations: set }), migrate(lagging(other), { migrations: set })]);
      assertAppliedOnce([a, b].map((l) => l.map((m) => m.version)), [1, 2, 3], await raceLog(store.db));
      const s = await migrationStatus(store.db, { migrations: set });
      assert.deepEqual(s.applied.map((x) => x.version), [1, 2, 3]);
    });

    it('three migrator processes started together apply each migration exactly once', async () => {
      const target = dialect === 'sqlite' ? store.path! : store.url!;
      const startAt = String(Date.now() + 1500); // after all three have loaded
      const outputs = await Promise.all(
        [1, 2, 3].map(() => run(process.execPath, [CHILD, dialect, target, startAt], { timeout: 60_000 })),
      );
      const perProcess = outputs.map((o) => JSON.parse(o.stdout) as number[]);
      assertAppliedOnce(perProcess, [1, 2, 3], await raceLog(store.db));
    });

    it('refuses a database that holds a version newer than the binary, applying nothing', async () => {
      const set = raceMigrations(dialect);
      await migrate(store.db, { migrations: set.slice(0, 1) });
      // A newer svc applied version 99; this binary knows 1..3, and 2 and 3 are still pending.
      await store.db.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [99, 'future', 'x']);
      const s = await migrationStatus(store.db, { migrations: set });
      assert.equal(s.newerThanBinary, true);
      assert.equal(s.current, 99);
      await assert.rejects(migrate(store.db, { migrations: set }), (err) => err instanceof MigrationError && err.code === 'newer_than_binary' && /99/.test(err.message));
      assert.deepEqual(await raceLog(store.db), [1], 'no pending migration ran');
    });

    it('rolls a failing migration back entirely, version row included, and keeps earlier ones', async () => {
      const set: Migration[] = [
        raceMigrations(dialect)[0]!,
        { version: 2, name: 'broken', sql: 'CREATE TABLE half_done (id INTEGER); INSERT INTO no_such_table VALUES (1);' },
      ];
      await assert.rejects(migrate(store.db, { migrations: set }), (err) => err instanceof MigrationError && err.code === 'migration_failed' && /0002_broken/.test(err.message));
      const s = await migrationStatus(store.db, { migrations: set });
      assert.deepEqual(s.applied.map((x) => x.version), [1]);
      assert.deepEqual(s.pending, [{ version: 2, name: 'broken' }]);
      assert.equal(await hasTable(store.db, 'half_done'), false);
    });
  });

  describe(`svc migrate command [${dialect}]`, () => {
    let store: FreshDb;
    let out: string[];
    let err: string[];
    const io = () => ({ env: store.env, stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) });
    beforeEach(async () => {
      store = await freshDb(dialect);
      out = [];
      err = [];
      process.exitCode = undefined;
    });
    afterEach(async () => {
      process.exitCode = undefined;
      await store.cleanup();
    });

    it('--status lists pending migrations without applying them, then applied ones after migrate', async () => {
      const known = knownMigrations(dialect);
      await migrateCommand({ status: true }, io());
      const before = out.join('');
      assert.match(before, new RegExp(`database at version 0, this binary at ${known.at(-1)!.version}`));
      assert.match(before, /^ {2}pending 0001_init$/m);
      assert.equal(process.exitCode, undefined);
      assert.equal(await migrationStatus(store.db).then((s) => s.current), 0, '--status changed nothing');

      out = [];
      await migrateCommand({}, io());
      assert.match(out.join(''), /^applied 0001_init$/m);
      assert.equal(process.exitCode, undefined);

      out = [];
      await migrateCommand({ status: true, json: true }, io());
      const json = JSON.parse(out.join(''));
      assert.equal(json.ok, true);
      assert.equal(json.current, json.latest);
      assert.deepEqual(json.migrations.map((m: { status: string }) => m.status), known.map(() => 'applied'));
      assert.equal(json.migrations[0].name, 'init');
      assert.match(json.migrations[0].appliedAt, /^\d{4}-\d\d-\d\dT/);
    });

    it('exits 1 when the database is newer than the binary, in --status and when applying', async () => {
      await migrate(store.db);
      await store.db.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [9999, 'future', 'x']);
      await migrateCommand({ status: true }, io());
      assert.equal(process.exitCode, 1);
      assert.match(out.join(''), /unknown 9999_future .*newer than this binary/);
      process.exitCode = undefined;
      await migrateCommand({ json: true }, io());
      assert.equal(process.exitCode, 1);
      assert.equal(JSON.parse(out.at(-1)!).error.code, 'newer_than_binary');
    });
  });
}

describe('svc migrate command: configuration', () => {
  it('prints the configuration problems and exits 1', async () => {
    const err: string[] = [];
    process.exitCode = undefined;
    await migrateCommand({}, { env: { SERVICE_STORE: 'postgres' }, stdout: () => {}, stderr: (t) => void err.push(t) });
    assert.equal(process.exitCode, 1);
    process.exitCode = undefined;
    assert.match(err.join(''), /invalid configuration:\n {2}- DATABASE_URL: required when SERVICE_STORE=postgres/);
  });
});
