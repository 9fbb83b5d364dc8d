import { ConfigError, loadConfig, resolveSecrets, type LoadedConfig } from '../core/kernel/config/index.ts';
import { isAppError } from '../core/kernel/errors.ts';
import { createCore, openCore, type Core } from '../core/index.ts';
import { createLogger, type Logger } from '../core/kernel/log.ts';
import { createServices, openServices, type Services } from '../core/services.ts';
import { migrationStatus, openDb } from '../core/store/index.ts';

// One lifecycle: config → problems → core + services → signals → run → close → exit code.

/** One line on stderr, exit code 1. */
export class CliError extends Error {}

export interface CommandIo {
  env?: NodeJS.ProcessEnv;
  stderr?: (text: string) => void;
}

const stderrOf = (io: CommandIo) => io.stderr ?? ((t: string) => void process.stderr.write(t));

/** Config problems, in the one style every command prints. */
export const problemsText = (name: string, problems: readonly string[], note = '') =>
  `${name}: invalid configuration${note}:\n${problems.map((p) => `  - ${p}\n`).join('')}`;

/** Or undefined, after printing the problems and setting exit code 1. */
export function loadConfigOrExplain(name: string, io: CommandIo = {}, note = ''): LoadedConfig | undefined {
  try {
    return loadConfig(io.env ?? process.env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    stderrOf(io)(problemsText(name, e.problems, note));
    process.exitCode = 1;
    return undefined;
  }
}

export interface Opened {
  core: Core;
  services: Services;
}

/** For serve and worker: the configured store, JSON logs on stdout. */
export async function openProcess(loaded: LoadedConfig, log: Logger): Promise<Opened> {
  const core = await openCore(loaded.config, { log });
  return { core, services: await openServices(core) };
}

const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

export interface StopOptions {
  /** Logs the second signal (serve); the worker exits silently. */
  log?: Logger;
  exit?: (code: number) => void;
}

/** A second signal: the operator won't wait, exit 128+signo at once. */
export function onStopSignals(stop: (signal: NodeJS.Signals) => Promise<void>, opts: StopOptions = {}): void {
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      opts.log?.warn('second signal; exiting without waiting', { signal });
      exit(SIGNAL_EXIT[signal] ?? 1);
      return;
    }
    stopping = true;
    void stop(signal).then(
      () => exit(0),
      (err: unknown) => {
        opts.log?.error('shutdown failed', { error: err });
        exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** Same secrets as serve; never migrates behind the operator's back. */
async function openStoreCore(config: LoadedConfig['config']): Promise<Core> {
  const { secrets } = resolveSecrets(config);
  // stderr, so --json output on stdout stays parseable.
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

/** Known errors become `<name>: <message>` and exit code 1. */
export async function runTool(name: string, io: CommandIo, body: (o: Opened) => Promise<void>, explain: (e: Error) => string = (e) => e.message): Promise<void> {
  const err = stderrOf(io);
  const loaded = loadConfigOrExplain(name, io);
  if (!loaded) return;
  let core: Core | undefined;
  try {
    core = await openStoreCore(loaded.config);
    await body({ core, services: createServices(core) });
  } catch (e) {
    if (!(e instanceof CliError) && !isAppError(e)) throw e;
    err(`${name}: ${explain(e)}\n`);
    process.exitCode = 1;
  } finally {
    await core?.close().catch(() => {});
  }
}
