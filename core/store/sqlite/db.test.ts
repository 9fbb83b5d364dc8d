// The database file and its WAL and shared-memory files hold password hashes, sealed provider keys
// and every run's text: readable by their owner only (0600), whatever the process umask.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, test } from 'vitest';
import { openSqliteDb } from './db.ts';

const mode = (p: string) => statSync(p).mode & 0o777;

describe('SQLite file modes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-mode-'));
  const previous = process.umask(0o022); // the usual umask, under which a plain create gives 0644
  afterAll(() => {
    process.umask(previous);
    rmSync(dir, { recursive: true, force: true });
  });

  test('a new database, its -wal and its -shm are created 0600', async () => {
    const path = join(dir, 'new', 'svc.db');
    const db = openSqliteDb(path);
    try {
      await db.exec('CREATE TABLE t (x INTEGER)');
      await db.run('INSERT INTO t (x) VALUES (1)');
      for (const p of [path, `${path}-wal`, `${path}-shm`]) assert.equal(mode(p).toString(8), '600', p);
    } finally {
      await db.close();
    }
  });

  test('an existing database left 0644 by an older version is tightened to 0600 when opened', async () => {
    const path = join(dir, 'old.db');
    writeFileSync(path, '');
    chmodSync(path, 0o644);
    const db = openSqliteDb(path);
    try {
      await db.run('CREATE TABLE t (x INTEGER)');
      for (const p of [path, `${path}-wal`, `${path}-shm`]) assert.equal(mode(p).toString(8), '600', p);
    } finally {
      await db.close();
    }
  });
});
