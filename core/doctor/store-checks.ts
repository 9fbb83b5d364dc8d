import { existsSync } from 'node:fs';
import type { Config } from '../kernel/config/index.ts';
import { migrationStatus, openDb } from '../store/index.ts';
import type { Finding } from './types.ts';

/** Never writes: doctor only looks. */
export async function checkStore(config: Config): Promise<Finding[]> {
  const where = config.SERVICE_STORE === 'sqlite' ? config.dbPath : 'DATABASE_URL';
  if (config.SERVICE_STORE === 'sqlite' && !existsSync(config.dbPath)) {
    return [{ check: 'store', status: 'ok', message: `${config.dbPath} does not exist yet; svc serve (or svc migrate) creates it` }];
  }
  let db;
  try {
    db = await openDb(config, { readonly: true });
    await db.ping();
  } catch (err) {
    await db?.close().catch(() => {});
    return [{
      check: 'store',
      status: 'fail',
      message: `cannot reach the ${config.SERVICE_STORE} store (${where}): ${(err as Error).message}`,
      fix: config.SERVICE_STORE === 'postgres'
        ? 'check DATABASE_URL, that PostgreSQL is running, and that this host may connect (pg_hba.conf)'
        : 'check SERVICE_DB_PATH and the permissions of its directory',
    }];
  }
  try {
    const s = await migrationStatus(db);
    const findings: Finding[] = [{ check: 'store', status: 'ok', message: `${config.SERVICE_STORE} store reachable (${where})` }];
    if (s.newerThanBinary) {
      findings.push({ check: 'migrations', status: 'fail', message: `the database is at version ${s.current}, newer than this binary knows (${s.latest})`, fix: 'upgrade svc to the version that migrated this database' });
    } else if (s.pending.length > 0) {
      findings.push({ check: 'migrations', status: 'fail', message: `${s.pending.length} migration(s) pending (database at ${s.current}, binary at ${s.latest})`, fix: 'run: svc migrate' });
    } else {
      findings.push({ check: 'migrations', status: 'ok', message: `schema current (version ${s.current})` });
    }
    return findings;
  } finally {
    await db.close();
  }
}
