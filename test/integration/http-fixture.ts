import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manualClock } from '../../core/kernel/clock.ts';
import { loadConfig, resolveSecrets } from '../../core/kernel/config/index.ts';
import { createCore, type Core } from '../../core/index.ts';
import { createLogger } from '../../core/kernel/log.ts';
import { openServices, type Services, type ServicesOptions } from '../../core/services.ts';
import { migrate, openDb } from '../../core/store/index.ts';
import type { Dialect } from '../../core/store/types.ts';
import { freshDb } from '../helpers/stores.ts';

/** Low scrypt cost for tests: the OWASP cost (≈0.5 s a hash) is measured in the bench instead. */
export const TEST_SCRYPT = { N: 1024, r: 8, p: 1 };

export interface Fixture {
  core: Core;
  /** Built lazily; one per core, as in a process. */
  services: Services;
  clock: ReturnType<typeof manualClock>;
  /** Every log line written so far, parsed. */
  logs: Array<Record<string, unknown>>;
  cleanup(): Promise<void>;
}

export interface FixtureOptions {
  migrated?: boolean;
  env?: Record<string, string>;
  /** Default sqlite (a temp file); postgres gets a fresh database on 127.0.0.1:5432. */
  store?: Dialect;
  services?: ServicesOptions;
}

/** A Core on a real store (fresh SQLite file or PostgreSQL database), captured log, manual clock. */
export async function testCore(opts: FixtureOptions = {}): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-http-'));
  const logs: Array<Record<string, unknown>> = [];
  const log = createLogger('debug', (line) => logs.push(JSON.parse(line) as Record<string, unknown>));
  const pg = opts.store === 'postgres' ? await freshDb('postgres') : undefined;
  const env = { HOME: dir, SERVICE_DB_PATH: join(dir, 'svc.db'), ...pg?.env, ...opts.env };
  const { config } = loadConfig(env);
  const db = pg?.db ?? (await openDb(config));
  if (opts.migrated ?? true) await migrate(db);
  const clock = manualClock();
  const core = createCore({ config, secrets: resolveSecrets(config).secrets, db, log, clock, scrypt: TEST_SCRYPT, defaultMetrics: false });
  return {
    core,
    services: await openServices(core, opts.services),
    clock,
    logs,
    async cleanup() {
      await core.close();
      await pg?.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A SQLite test core (the foundation tests' name for it). */
export const sqliteCore = (opts: Omit<FixtureOptions, 'store'> = {}) => testCore(opts);
