import type { Core } from '../../core/index.ts';
import { createLogger } from '../../core/kernel/log.ts';
import type { Services } from '../../core/services.ts';
import { migrate, migrationStatus } from '../../core/store/index.ts';
import { newerThanBinary } from '../../core/store/migrations.ts';
import { startServer, type ServerHandle } from '../../daemon/server.ts';
import { VERSION } from '../../core/kernel/version.ts';
import { startScheduler } from '../../daemon/scheduler.ts';
import { explainError } from '../explain-error.ts';
import { loadConfigOrExplain, onStopSignals, openProcess } from '../command.ts';
import { isEmptyStore } from '../../core/accounts/bootstrap.ts';

/** Migrates at start: the runner is safe for replicas starting together. */
export async function serve(opts: { migrate: boolean }): Promise<void> {
  const loaded = loadConfigOrExplain('svc', {}, ', not starting');
  if (!loaded) return;
  const { config, warnings } = loaded;
  const log = createLogger(config.SERVICE_LOG_LEVEL);
  for (const w of warnings) log.warn(w);

  const { core, services } = await openProcess(loaded, log);
  try {
    await prepareSchema(core, opts.migrate);
  } catch (err) {
    await core.close().catch(() => {});
    const reason = explainError(err);
    log.error('not starting', { reason });
    process.stderr.write(`svc: ${reason}\n`);
    process.exit(1);
  }

  const handle = await startServer(core, services, { port: config.PORT, host: config.SERVICE_HOST });
  onStopSignals((signal) => drain(core, handle, signal), { log });
  startEmbeddedWorkers(core, services);
  // Every process runs one; SERVICE_SCHEDULER_LEADER_MODE decides who enqueues.
  startScheduler(core, services);
  sealLegacyToolSecrets(core);
  collectStartupGarbage();
  const address = `http://${handle.host.includes(':') ? `[${handle.host}]` : handle.host}:${handle.port}`;
  // DATABASE_URL is never logged: it usually holds a password.
  log.info('listening', {
    address,
    port: handle.port,
    store: config.SERVICE_STORE,
    ...(config.SERVICE_STORE === 'sqlite' ? { dbPath: config.dbPath } : {}),
    version: VERSION,
    pid: process.pid,
  });
  // For the person at the terminal: logs are JSON on stdout.
  const next = (await isEmptyStore(core.db)) ? `open ${config.SERVICE_APP_ORIGIN}/sign-up to create the owner account` : `open ${config.SERVICE_APP_ORIGIN}`;
  process.stderr.write(`svc: listening on ${address} (${config.SERVICE_STORE}) — ${next}\n`);
}

/** Auto: 2 on SQLite, 0 on PostgreSQL; stopped before the store closes. */
function startEmbeddedWorkers(core: Core, services: Services): void {
  const n = core.config.SERVICE_EMBEDDED_WORKERS === 'auto' ? (core.config.SERVICE_STORE === 'sqlite' ? 2 : 0) : core.config.SERVICE_EMBEDDED_WORKERS;
  if (n === 0) return;
  const w = services.queue.worker({ concurrency: n, leaseMs: core.config.SERVICE_JOB_LEASE_MS });
  core.onClose(() => w.stop(core.config.SERVICE_SHUTDOWN_TIMEOUT_MS));
  void w.start().catch((err: unknown) => core.log.error('embedded worker stopped', { error: err }));
  core.log.info('embedded queue workers started', { concurrency: n });
}

/** Drains the server, forced after SERVICE_SHUTDOWN_TIMEOUT_MS, then closes the store. */
async function drain(core: Core, handle: ServerHandle, signal: NodeJS.Signals): Promise<void> {
  const started = performance.now();
  core.log.info('stopping', { signal, timeoutMs: core.config.SERVICE_SHUTDOWN_TIMEOUT_MS });
  const { forced } = await handle.close();
  await core.close();
  core.log.info('stopped', { signal, forced, durationMs: Math.round(performance.now() - started) });
}

async function prepareSchema(core: Core, apply: boolean): Promise<void> {
  const status = await migrationStatus(core.db);
  if (status.newerThanBinary) {
    throw newerThanBinary(status);
  }
  if (status.pending.length === 0) return;
  if (!apply) {
    throw new Error(`${status.pending.length} migration(s) pending (database at ${status.current}, binary at ${status.latest}) and --no-migrate was given; run \`svc migrate\` first`);
  }
  core.log.info('applying migrations', { store: core.config.SERVICE_STORE, from: status.current, to: status.latest });
  // Another replica may apply some: `applied` lists only ours.
  const applied = await migrate(core.db);
  core.log.info('migrations applied', { version: status.latest, applied: applied.map((m) => `${m.version}_${m.name}`) });
}

/** Older agents hold http_request headers in the clear; off the start-up path. */
function sealLegacyToolSecrets(core: Core): void {
  void (async () => {
    const [{ sealStoredToolSecrets }, { createVault }] = await Promise.all([import('../../core/agents/service.ts'), import('../../core/vault/index.ts')]);
    const n = await sealStoredToolSecrets(core.db, createVault(core.secrets.SERVICE_VAULT_KEY));
    if (n > 0) core.log.info('sealed credential headers of agent tools stored in the clear', { rows: n });
  })().catch((err: unknown) => core.log.warn('could not seal stored tool credentials', { error: err }));
}

const STARTUP_GC_DELAY_MS = 500;

/**
 * An idle V8 never returns start-up garbage; one delayed collection does (docs/operations.md).
 * Binary only: build.mjs exposes gc.
 */
function collectStartupGarbage(): void {
  const gc = (globalThis as { __SVC_GC__?: (opts: object) => void }).__SVC_GC__;
  if (!gc) return;
  setTimeout(() => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' }), STARTUP_GC_DELAY_MS).unref();
}
