// A fresh, real store per dialect for integration tests, removed afterwards.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { openPostgresDb } from '../../core/store/postgres/db.ts';
import { openSqliteDb, type SqliteDbOptions } from '../../core/store/sqlite/db.ts';
import type { Db, Dialect } from '../../core/store/types.ts';
import { createScratchDatabase } from './pgdb.ts';

export const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres'];

export interface FreshDb {
  dialect: Dialect;
  db: Db;
  /** SQLite: the database file. */
  path?: string;
  /** PostgreSQL: the connection string of the fresh database. */
  url?: string;
  /** The environment that points `svc` (loadConfig) at this database. */
  env: Record<string, string>;
  /** An independent Db on the same database; cleanup closes it. */
  reopen(opts?: SqliteDbOptions): Db;
  cleanup(): Promise<void>;
}

export async function freshDb(dialect: Dialect): Promise<FreshDb> {
  const extra: Db[] = [];
  const closeAll = async (db: Db) => {
    await Promise.all([db, ...extra].map((d) => d.close().catch(() => {})));
  };
  if (dialect === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'svc-store-'));
    const path = join(dir, 'data', 'svc.db');
    const db = openSqliteDb(path);
    return {
      dialect,
      db,
      path,
      env: { SERVICE_STORE: 'sqlite', SERVICE_DB_PATH: path, HOME: dir, SERVICE_LOG_LEVEL: 'silent' },
      reopen: (opts) => {
        const other = openSqliteDb(path, opts);
        extra.push(other);
        return other;
      },
      cleanup: async () => {
        await closeAll(db);
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  const scratch = await createScratchDatabase('svc_test');
  const db = openPostgresDb(scratch.url, { poolSize: 10 });
  return {
    dialect,
    db,
    url: scratch.url,
    env: { SERVICE_STORE: 'postgres', DATABASE_URL: scratch.url, SERVICE_LOG_LEVEL: 'silent' },
    reopen: () => {
      const other = openPostgresDb(scratch.url, { poolSize: 10 });
      extra.push(other);
      return other;
    },
    cleanup: async () => {
      await closeAll(db);
      await scratch.drop();
    },
  };
}

/** One `describe` per dialect, sharing one fresh database; `get()` only inside tests and hooks. */
export function forEachStore(name: string, body: (get: () => FreshDb, dialect: Dialect) => void): void {
  for (const dialect of DIALECTS) {
    describe(`${name} [${dialect}]`, () => {
      let store: FreshDb | undefined;
      beforeAll(async () => {
        store = await freshDb(dialect);
      });
      afterAll(async () => {
        await store?.cleanup();
      });
      body(() => {
        if (!store) throw new Error('forEachStore: the store is available inside tests only');
        return store;
      }, dialect);
    });
  }
}
