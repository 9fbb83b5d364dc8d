import { ConfigError, loadConfig, type Config } from '../../core/kernel/config/index.ts';
import { problemsText } from '../command.ts';
import { migrate as applyMigrations, migrationStatus, openDb, type Db, type MigrationStatus } from '../../core/store/index.ts';

/**
 * Exit 1 on failure, and on a database a newer svc migrated.
 * Pending migrations under --status are no failure: doctor reports them.
 */
export interface MigrateCommandOptions {
  status?: boolean;
  json?: boolean;
}

/** Injectable for tests; defaults to the real process. */
export interface MigrateIo {
  env?: NodeJS.ProcessEnv;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

export async function migrate(opts: MigrateCommandOptions = {}, io: MigrateIo = {}): Promise<void> {
  const out = io.stdout ?? ((t: string) => void process.stdout.write(t));
  const err = io.stderr ?? ((t: string) => void process.stderr.write(t));
  const fail = (code: string, message: string) => {
    if (opts.json) out(JSON.stringify({ ok: false, error: { code, message } }, null, 2) + '\n');
    else err(`svc migrate: ${message}\n`);
    process.exitCode = 1;
  };

  let config: Config;
  try {
    config = loadConfig(io.env ?? process.env).config;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    if (opts.json) out(JSON.stringify({ ok: false, error: { code: 'invalid_config', message: e.message, problems: e.problems } }, null, 2) + '\n');
    else err(problemsText('svc migrate', e.problems));
    process.exitCode = 1;
    return;
  }
  // It usually holds a password: name the variable, never its value.
  const store = config.SERVICE_STORE === 'sqlite' ? `sqlite (${config.dbPath})` : 'postgres (DATABASE_URL)';

  let db: Db;
  try {
    db = await openDb(config);
  } catch (e) {
    fail('store_unavailable', `cannot open the ${store} store: ${(e as Error).message}`);
    return;
  }
  try {
    if (opts.status) {
      const status = await migrationStatus(db);
      if (opts.json) out(JSON.stringify({ ok: !status.newerThanBinary, store: config.SERVICE_STORE, ...statusJson(status) }, null, 2) + '\n');
      else out(statusLines(store, status).join('\n') + '\n');
      if (status.newerThanBinary) process.exitCode = 1;
      return;
    }
    const applied = await applyMigrations(db);
    const status = await migrationStatus(db);
    if (opts.json) {
      out(JSON.stringify({ ok: true, store: config.SERVICE_STORE, applied, current: status.current, latest: status.latest }, null, 2) + '\n');
    } else {
      for (const m of applied) out(`applied ${label(m)}\n`);
      out(applied.length === 0 ? `${store}: schema up to date at version ${status.current}\n` : `${store}: schema now at version ${status.current}\n`);
    }
  } catch (e) {
    fail((e as { code?: string }).code ?? 'migration_failed', (e as Error).message);
  } finally {
    await db.close().catch(() => {});
  }
}

type Entry = { version: number; name: string; status: 'applied' | 'pending' | 'unknown'; appliedAt?: string };

/** Known to the binary or the database. */
function entries(s: MigrationStatus): Entry[] {
  const list: Entry[] = s.applied.map((a) => ({
    version: a.version,
    name: a.name,
    // An applied version above the binary's latest came from a newer svc.
    status: a.version > s.latest ? 'unknown' : 'applied',
    appliedAt: a.appliedAt,
  }));
  for (const p of s.pending) list.push({ ...p, status: 'pending' });
  return list.sort((a, b) => a.version - b.version);
}

function statusJson(s: MigrationStatus) {
  return { current: s.current, latest: s.latest, newerThanBinary: s.newerThanBinary, migrations: entries(s) };
}

function statusLines(store: string, s: MigrationStatus): string[] {
  const lines = [`${store}: database at version ${s.current}, this binary at ${s.latest}`];
  for (const e of entries(s)) {
    const when = e.appliedAt ? `  ${e.appliedAt}` : '';
    const note = e.status === 'unknown' ? '  (newer than this binary)' : '';
    lines.push(`  ${e.status.padEnd(7)} ${label(e)}${when}${note}`);
  }
  if (s.newerThanBinary) lines.push('the database was migrated by a newer svc: upgrade this binary before using it');
  else if (s.pending.length > 0) lines.push(`${s.pending.length} pending: run \`svc migrate\` to apply`);
  return lines;
}

function label(m: { version: number; name: string }): string {
  return `${String(m.version).padStart(4, '0')}_${m.name}`;
}
