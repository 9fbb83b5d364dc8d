import { resolveSecrets, type Config, type Secrets } from './kernel/config/index.ts';
import { systemClock, type Clock } from './kernel/clock.ts';
import { createLogger, type Logger } from './kernel/log.ts';
import { openDb } from './store/index.ts';
import type { Db } from './store/types.ts';
import { createAuthRuntime, type AuthRuntime } from './auth-runtime.ts';
import type { ScryptCost } from './auth/password.ts';
import { createMetrics, type Metrics } from './kernel/metrics/registry.ts';

/** What every process works with, built once; services are built on it in core/services.ts. */
export interface Core {
  readonly config: Config;
  readonly secrets: Secrets;
  readonly db: Db;
  readonly log: Logger;
  readonly clock: Clock;
  /** Derived keys, the verified-credential cache and login throttles of this process. */
  readonly auth: AuthRuntime;
  /** The process's Prometheus registry; every area adds its metrics here. */
  readonly metrics: Metrics;
  /** Epoch ms at which this core was built (uptime, readiness). */
  readonly startedAt: number;
  /** Work to finish before the store closes (e.g. batched usage rows). */
  onClose(fn: () => Promise<void>): void;
  /** Runs the close hooks (newest first), then releases the store. Idempotent. */
  close(): Promise<void>;
}

export interface CoreParts {
  config: Config;
  secrets: Secrets;
  db: Db;
  log?: Logger;
  clock?: Clock;
  /** Password hashing cost; tests lower it, production keeps the OWASP default. */
  scrypt?: ScryptCost;
  /** Default true; tests building many cores turn it off. */
  defaultMetrics?: boolean;
}

export function createCore(parts: CoreParts): Core {
  const clock = parts.clock ?? systemClock;
  const log = parts.log ?? createLogger(parts.config.SERVICE_LOG_LEVEL);
  let closing: Promise<void> | undefined;
  const hooks: (() => Promise<void>)[] = [];
  return {
    config: parts.config,
    secrets: parts.secrets,
    db: parts.db,
    log,
    clock,
    auth: createAuthRuntime(parts.secrets, parts.scrypt),
    metrics: createMetrics({ defaults: parts.defaultMetrics !== false }),
    startedAt: clock.now(),
    onClose(fn) {
      hooks.push(fn);
    },
    close() {
      closing ??= (async () => {
        for (const fn of hooks.reverse()) {
          await fn().catch((err: unknown) => log.error('close hook failed', { error: err }));
        }
        await parts.db.close();
      })();
      return closing;
    },
  };
}

export interface OpenCoreOptions {
  log?: Logger;
  clock?: Clock;
}

/** Secrets, store, Core. Migrations are the caller's: `svc serve` applies, `svc doctor` reports. */
export async function openCore(config: Config, opts: OpenCoreOptions = {}): Promise<Core> {
  const log = opts.log ?? createLogger(config.SERVICE_LOG_LEVEL);
  const { secrets, warning } = resolveSecrets(config);
  if (warning) log.warn(warning);
  const db = await openDb(config, { logger: log });
  return createCore({ config, secrets, db, log, ...(opts.clock ? { clock: opts.clock } : {}) });
}
