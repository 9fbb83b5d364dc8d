import type { Config } from '../kernel/config/index.ts';
import { createLogger, type Logger } from '../kernel/log.ts';
import type { Db } from './types.ts';

/**
 * The one place that picks the store implementation. Each driver is imported only when chosen,
 * so a SQLite install never loads `pg` and a PostgreSQL one never loads the native addon.
 */
export type StoreConfig = Pick<Config, 'SERVICE_STORE' | 'dbPath' | 'DATABASE_URL' | 'SERVICE_DB_POOL_SIZE' | 'SERVICE_LOG_LEVEL'>;

export async function openDb(config: StoreConfig, opts: { logger?: Logger; readonly?: boolean } = {}): Promise<Db> {
  if (config.SERVICE_STORE === 'postgres') {
    if (!config.DATABASE_URL) throw new Error('DATABASE_URL is required when SERVICE_STORE=postgres');
    const { openPostgresDb } = await import('./postgres/db.ts');
    // The logger reports errors of idle pooled connections (never the URL: it holds a password).
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
