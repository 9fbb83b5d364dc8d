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

/**
 * `svc serve`: config → secrets → store → migrations → HTTP. Pending migrations are applied at
 * start on both stores (the runner is safe against concurrent migrators, so replicas starting
 * together are fine) unless --no-migrate, which refuses to start instead. See docs/operations.md.
 */
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
  // Every process runs the scheduler component; SERVICE_SCHEDULER_LEADER_MODE decides who enqueues.
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
  // One line for the person at the terminal (logs are JSON on stdout).
  const next = (await isEmptyStore(core.db)) ? `open ${config.SERVICE_APP_ORIGIN}/sign-up to create the owner account` : `open ${config.SERVICE_APP_ORIGIN}`;
  process.stderr.write(`svc: listening on ${address} (${config.SERVICE_STORE}) — ${next}\n`);
}

/** SERVICE_EMBEDDED_WORKERS (auto: 2 on SQLite, 0 on PostgreSQL): queue workers in this process.
 * Stopped (in-flight runs finish their step or hand back) before the store closes. */
function startEmbeddedWorkers(core: Core, services: Services): void {
  const n = core.config.SERVICE_EMBEDDED_WORKERS === 'auto' ? (core.config.SERVICE_STORE === 'sqlite' ? 2 : 0) : core.config.SERVICE_EMBEDDED_WORKERS;
  if (n === 0) return;
  const w = services.queue.worker({ concurrency: n, leaseMs: core.config.SERVICE_JOB_LEASE_MS });
  core.onClose(() => w.stop(core.config.SERVICE_SHUTDOWN_TIMEOUT_MS));
  void w.start().catch((err: unknown) => core.log.error('embedded worker stopped', { error: err }));
  core.log.info('embedded queue workers started', { concurrency: n });
}

/** Drains the server (up to SERVICE_SHUTDOWN_TIMEOUT_MS, then forced), then closes the store. */
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
  // A concurrent migrator (another replica) may apply some of them; `applied` lists only ours.
  const applied = await migrate(core.db);
  core.log.info('migrations applied', { version: status.latest, applied: applied.map((m) => `${m.version}_${m.name}`) });
}

/**
 * Agents saved before http_request credential headers were sealed hold them in the clear: seal
 * them once, in the background (loaded lazily: start-up time is measured).
 */
function sealLegacyToolSecrets(core: Core): void {
  void (async () => {
    const [{ sealStoredToolSecrets }, { createVault }] = await Promise.all([import('../../core/agents/service.ts'), import('../../core/vault/index.ts')]);
    const n = await sealStoredToolSecrets(core.db, createVault(core.secrets.SERVICE_VAULT_KEY));
    if (n > 0) core.log.info('sealed credential headers of agent tools stored in the clear', { rows: n });
  })().catch((err: unknown) => core.log.warn('could not seal stored tool credentials', { error: err }));
}

const STARTUP_GC_DELAY_MS = 500;

/**
 * Evaluating the program's modules grows V8's young generation to its maximum (2 × 4 MB, see
 * build.mjs) and leaves start-up garbage in the old one, and V8 never shrinks them in an idle
 * process (measured: RSS unchanged after 30 s). One memory-reducing collection once the server is
 * up returns that (about 5 MB of RSS); under load the young generation grows again as before.
 * Delayed so that it does not hold up the first requests; it pauses the process once for ~40 ms.
 * Only in the binary: build.mjs starts it with --expose-gc-as and sea-entry.cjs hands the function over.
 */
function collectStartupGarbage(): void {
  const gc = (globalThis as { __SVC_GC__?: (opts: object) => void }).__SVC_GC__;
  if (!gc) return;
  setTimeout(() => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' }), STARTUP_GC_DELAY_MS).unref();
}
