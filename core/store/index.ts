import type { Config } from '../kernel/config/index.ts';
import { createLogger, type Logger } from '../kernel/log.ts';
import type { Db } from './types.ts';

/** Drivers load only when chosen: SQLite never loads `pg`, PostgreSQL never the addon. */
export type StoreConfig = Pick<Config, 'SERVICE_STORE' | 'dbPath' | 'DATABASE_URL' | 'SERVICE_DB_POOL_SIZE' | 'SERVICE_LOG_LEVEL'>;

export async function openDb(config: StoreConfig, opts: { logger?: Logger; readonly?: boolean } = {}): Promise<Db> {
  if (config.SERVICE_STORE === 'postgres') {
    if (!config.DATABASE_URL) throw new Error('DATABASE_URL is required when SERVICE_STORE=postgres');
    const { openPostgresDb } = await import('./postgres/db.ts');
    // Idle-connection errors; never the URL, it holds a password.
    const logger = (opts.logger ?? createLogger(config.SERVICE_LOG_LEVEL)).child({ component: 'store' });
    return openPostgresDb(config.DATABASE_URL, { poolSize: config.SERVICE_DB_POOL_SIZE, logger });
  }
  const { openSqliteDb } = await import('./sqlite/db.ts');
  return openSqliteDb(config.dbPath, { readonly: opts.readonly });
}

export { migrate, migrationStatus, MigrationError, knownMigrations, readMigrationsFromDisk } from './migrations.ts';
export type { MigrationRef, MigrationStatus, AppliedMigrationRow, MigrateOptions, Migration, MigrationSet } from './migrations.ts';
export { UniqueViolation, StoreBusy, prepared } from './types.ts';
export type { Db, Queryable, Dialect, Row, RunResult, SqlValue, Sql, Prepared } from './types.ts';
