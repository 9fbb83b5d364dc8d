import { setTimeout as sleep } from 'node:timers/promises';
import { knownMigrations, type Migration } from './migration-files.ts';
import { StoreBusy, UniqueViolation, type Db, type Queryable } from './types.ts';

export { knownMigrations, readMigrationsFromDisk, readMigrationsDir } from './migration-files.ts';
export type { Migration, MigrationSet } from './migration-files.ts';

/** The version row goes in first, so concurrent migrators clash on it (docs/operations.md).
 * Files must not hold BEGIN/COMMIT or CREATE INDEX CONCURRENTLY: each runs in a transaction. */

export interface MigrationRef {
  version: number;
  name: string;
}

export interface AppliedMigrationRow extends MigrationRef {
  appliedAt: string;
}

export interface MigrationStatus {
  /** Highest version recorded in the database (0 when none). */
  current: number;
  /** Highest version this binary knows (0 when none). */
  latest: number;
  pending: MigrationRef[];
  applied: AppliedMigrationRow[];
  /** A newer svc migrated the database. */
  newerThanBinary: boolean;
}

export interface MigrateOptions {
  /** Override the binary's migrations (tests). */
  migrations?: Migration[];
  now?: () => Date;
}

export type MigrationErrorCode = 'newer_than_binary' | 'migration_failed';

export class MigrationError extends Error {
  readonly code: MigrationErrorCode;
  constructor(code: MigrationErrorCode, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'MigrationError';
    this.code = code;
  }
}

/** Waits for another process's write lock. */
const BUSY_RETRIES = 12;

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at TEXT NOT NULL
)`;

/** Read-only: creates no table. */
export async function migrationStatus(db: Db, opts: MigrateOptions = {}): Promise<MigrationStatus> {
  const known = sorted(opts.migrations ?? knownMigrations(db.dialect));
  const applied = (await tableExists(db)) ? await readApplied(db) : [];
  const appliedSet = new Set(applied.map((a) => a.version));
  const latest = known.at(-1)?.version ?? 0;
  const current = applied.reduce((max, a) => Math.max(max, a.version), 0);
  return {
    current,
    latest,
    pending: known.filter((m) => !appliedSet.has(m.version)).map(({ version, name }) => ({ version, name })),
    applied,
    newerThanBinary: current > latest,
  };
}

/** Returns only what this call applied; on failure, earlier migrations stay applied. */
export async function migrate(db: Db, opts: MigrateOptions = {}): Promise<MigrationRef[]> {
  const known = sorted(opts.migrations ?? knownMigrations(db.dialect));
  await ensureTable(db);
  const status = await migrationStatus(db, { migrations: known });
  if (status.newerThanBinary) throw newerThanBinary(status);
  const now = opts.now ?? (() => new Date());
  const done: MigrationRef[] = [];
  for (const ref of status.pending) {
    const migration = known.find((m) => m.version === ref.version)!;
    if (await applyOne(db, migration, now)) done.push(ref);
  }
  return done;
}

export function newerThanBinary(status: Pick<MigrationStatus, 'current' | 'latest'>): MigrationError {
  return new MigrationError(
    'newer_than_binary',
    `the database is at schema version ${status.current}, newer than this binary knows (${status.latest}); upgrade svc, or check that it points at the right database`,
  );
}

class AlreadyApplied extends Error {}

async function applyOne(db: Db, m: Migration, now: () => Date): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db.tx(async (q: Queryable) => {
        try {
          await q.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [m.version, m.name, now().toISOString()]);
        } catch (err) {
          if (err instanceof UniqueViolation) throw new AlreadyApplied();
          throw err;
        }
        await q.exec(m.sql);
      });
      return true;
    } catch (err) {
      if (err instanceof AlreadyApplied) return false;
      if (err instanceof StoreBusy && attempt < BUSY_RETRIES) {
        await sleep(50 * attempt);
        continue;
      }
      throw new MigrationError('migration_failed', `migration ${label(m)} failed: ${(err as Error).message}`, err);
    }
  }
}

async function ensureTable(db: Db): Promise<void> {
  if (await tableExists(db)) return;
  try {
    await db.tx((q) => q.exec(CREATE_TABLE));
  } catch (err) {
    // Concurrent CREATE TABLE IF NOT EXISTS can collide in PostgreSQL's catalog.
    if (await tableExists(db)) return;
    throw err;
  }
}

async function tableExists(db: Db): Promise<boolean> {
  const sql =
    db.dialect === 'sqlite'
      ? "SELECT 1 AS present FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
      : "SELECT 1 AS present WHERE to_regclass('schema_migrations') IS NOT NULL";
  return (await db.one(sql)) !== undefined;
}

async function readApplied(db: Db): Promise<AppliedMigrationRow[]> {
  const rows = await db.all<{ version: number; name: string; applied_at: string }>(
    'SELECT version, name, applied_at FROM schema_migrations ORDER BY version',
  );
  return rows.map((r) => ({ version: Number(r.version), name: r.name, appliedAt: r.applied_at }));
}

function sorted(list: Migration[]): Migration[] {
  return [...list].sort((a, b) => a.version - b.version);
}

function label(m: MigrationRef): string {
  return `${String(m.version).padStart(4, '0')}_${m.name}`;
}
