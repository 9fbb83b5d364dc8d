import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { knownMigrations, readMigrationsFromDisk, type MigrationSet } from './migration-files.ts';

describe('migration files', () => {
  let root: string;
  const put = (dialect: string, file: string, sql = 'SELECT 1;') => {
    mkdirSync(join(root, 'migrations', dialect), { recursive: true });
    writeFileSync(join(root, 'migrations', dialect, file), sql);
  };
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'svc-mig-'));
    mkdirSync(join(root, 'migrations', 'sqlite'), { recursive: true });
    mkdirSync(join(root, 'migrations', 'postgres'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('reads both dialects sorted by version, ignoring non-SQL files', () => {
    for (const d of ['sqlite', 'postgres']) {
      put(d, '0002_second.sql', `-- ${d} 2`);
      put(d, '0001_init.sql', `-- ${d} 1`);
      put(d, 'README.md', 'notes');
    }
    const set = readMigrationsFromDisk(root);
    assert.deepEqual(set.sqlite, [
      { version: 1, name: 'init', sql: '-- sqlite 1' },
      { version: 2, name: 'second', sql: '-- sqlite 2' },
    ]);
    assert.deepEqual(set.postgres.map((m) => m.sql), ['-- postgres 1', '-- postgres 2']);
  });

  it('refuses a version present in one dialect only', () => {
    put('sqlite', '0001_init.sql');
    put('postgres', '0001_init.sql');
    put('sqlite', '0002_only_here.sql');
    assert.throws(() => readMigrationsFromDisk(root), /differ between dialects.*0002_only_here/s);
  });

  it('refuses badly named files and repeated versions', () => {
    put('sqlite', '1_init.sql');
    assert.throws(() => readMigrationsFromDisk(root), /must be named NNNN_name\.sql/);
    rmSync(join(root, 'migrations', 'sqlite', '1_init.sql'));
    put('sqlite', '0001_a.sql');
    put('sqlite', '0001_b.sql');
    assert.throws(() => readMigrationsFromDisk(root), /appears twice/);
  });

  it('the repository migrations are consistent and start with 0001_init', () => {
    const set = readMigrationsFromDisk(join(import.meta.dirname, '..', '..'));
    assert.equal(set.sqlite[0]?.name, 'init');
    assert.deepEqual(knownMigrations('postgres').map((m) => m.version), set.postgres.map((m) => m.version));
  });

  it('prefers the migrations the single-executable build inlined', () => {
    const g = globalThis as { __SVC_MIGRATIONS__?: MigrationSet };
    g.__SVC_MIGRATIONS__ = { sqlite: [{ version: 7, name: 'b', sql: '' }, { version: 3, name: 'a', sql: '' }], postgres: [] };
    try {
      assert.deepEqual(knownMigrations('sqlite').map((m) => m.version), [3, 7]);
    } finally {
      delete g.__SVC_MIGRATIONS__;
    }
  });
});
