import { ConfigError, loadConfig, resolveSecrets } from '../../core/config/index.ts';
import { createCore, type Core } from '../../core/index.ts';
import { createLogger } from '../../core/log.ts';
import { migrationStatus, openDb } from '../../core/store/index.ts';

/** A failure `svc invite` reports as one line on stderr with exit code 1. */
export class CliError extends Error {}

/**
 * Opens the configured store the way `svc serve` does (same config, same secrets file, so the same
 * token-hash key) and builds a Core on it. Refuses a store whose schema is not current: the CLI
 * never migrates behind the operator's back.
 */
export async function openStoreCore(env: NodeJS.ProcessEnv): Promise<Core> {
  let config;
  try {
    config = loadConfig(env).config;
  } catch (e) {
    if (e instanceof ConfigError) throw new CliError(`invalid configuration:\n${e.problems.map((p) => `  - ${p}`).join('\n')}`);
    throw e;
  }
  const { secrets } = resolveSecrets(config);
  // Log lines (e.g. a relay failure) go to stderr so --json output on stdout stays parseable.
  const log = createLogger(config.SERVICE_LOG_LEVEL === 'debug' ? 'debug' : 'warn', (line) => void process.stderr.write(line));
  const store = config.SERVICE_STORE === 'sqlite' ? `sqlite (${config.dbPath})` : 'postgres (DATABASE_URL)';
  let db;
  try {
    db = await openDb(config, { logger: log });
  } catch (e) {
    throw new CliError(`cannot open the ${store} store: ${(e as Error).message}`);
  }
  try {
    const status = await migrationStatus(db);
    if (status.newerThanBinary) throw new CliError(`the ${store} store was migrated by a newer svc; upgrade this binary`);
    if (status.pending.length > 0) {
      throw new CliError(`the ${store} store has ${status.pending.length} pending migration(s): run svc migrate (or start svc serve) first`);
    }
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
  return createCore({ config, secrets, db, log, defaultMetrics: false });
}
