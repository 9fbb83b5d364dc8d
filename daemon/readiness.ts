import type { Core } from '../core/index.ts';
import { migrationStatus } from '../core/store/index.ts';

// Free of Hono: the fast lane answers probes before the app loads.

export interface ReadinessOptions {
  /** Ping deadline before the probe says not ready. */
  pingTimeoutMs?: number;
  /** Frequent probes then cost one ping and no schema reads. */
  statusCacheMs?: number;
}

export interface Readiness {
  ready: boolean;
  checks: { store: 'ok' | 'failed'; migrations: 'ok' | 'pending' | 'newer_than_binary' | 'unknown' };
  reasons: string[];
}

type Status = Awaited<ReturnType<typeof migrationStatus>>;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Store reachable, no pending migration, database not newer than us. */
export function createReadiness(core: Core, opts: ReadinessOptions = {}): () => Promise<Readiness> {
  const pingTimeoutMs = opts.pingTimeoutMs ?? 2000;
  const statusCacheMs = opts.statusCacheMs ?? 5000;
  let cached: { at: number; status: Status } | undefined;
  let inflight: Promise<Status> | undefined;

  const status = async (): Promise<Status> => {
    const now = core.clock.now();
    if (cached && now - cached.at < statusCacheMs) return cached.status;
    // Concurrent probes share one read instead of each querying the store.
    inflight ??= migrationStatus(core.db)
      .then((s) => {
        cached = { at: core.clock.now(), status: s };
        return s;
      })
      .finally(() => {
        inflight = undefined;
      });
    return inflight;
  };

  return async () => {
    const reasons: string[] = [];
    const checks: Readiness['checks'] = { store: 'ok', migrations: 'unknown' };
    try {
      await withTimeout(core.db.ping(), pingTimeoutMs);
    } catch (err) {
      checks.store = 'failed';
      // Names the host at most: never the password or DATABASE_URL.
      reasons.push(`store: ${core.config.SERVICE_STORE} is not reachable (${(err as Error).message})`);
      return { ready: false, checks, reasons };
    }
    try {
      const s = await withTimeout(status(), pingTimeoutMs);
      if (s.newerThanBinary) {
        checks.migrations = 'newer_than_binary';
        reasons.push(`migrations: the database is at version ${s.current}, newer than this binary's ${s.latest}; upgrade svc`);
      } else if (s.pending.length > 0) {
        checks.migrations = 'pending';
        reasons.push(`migrations: ${s.pending.length} pending (database at ${s.current}, binary at ${s.latest}); run \`svc migrate\``);
      } else {
        checks.migrations = 'ok';
      }
    } catch (err) {
      reasons.push(`migrations: status unavailable (${(err as Error).message})`);
    }
    return { ready: reasons.length === 0, checks, reasons };
  };
}

/** 200 ready, or 503 with the reasons. */
export function readinessAnswer(r: Readiness): { status: 200 | 503; body: unknown } {
  return r.ready
    ? { status: 200, body: { status: 'ready', checks: r.checks } }
    : { status: 503, body: { status: 'not_ready', checks: r.checks, reasons: r.reasons } };
}
