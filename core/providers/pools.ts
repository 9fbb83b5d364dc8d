import type { Pool } from 'undici';

// undici (~870 KB) is loaded on the first upstream call, not at start: `svc serve` starts faster
// and commands that never call a model never parse it.
let undici: Promise<typeof import('undici')> | undefined;
let PoolClass: typeof Pool | undefined;

/**
 * One undici Pool per upstream origin, created on first use and kept for the engine's life:
 * connections stay alive between calls (no TCP/TLS handshake per request), pipelining stays at 1
 * (a slow completion must never hold up the one queued behind it on the same socket).
 */
export interface PoolOptions {
  /** Max sockets per origin; undefined = unbounded. */
  connections?: number | undefined;
  keepAliveTimeoutMs?: number | undefined;
}

export class Pools {
  private readonly pools = new Map<string, Pool>();
  private closed = false;
  private readonly opts: PoolOptions;

  constructor(opts: PoolOptions = {}) {
    this.opts = opts;
  }

  /** The origin's pool; a promise only until undici has been loaded once. */
  get(origin: string): Pool | Promise<Pool> {
    const p = this.pools.get(origin);
    if (p) return p;
    if (!PoolClass) {
      return (undici ??= import('undici')).then((m) => {
        // Bundled, the CommonJS package arrives as a default export; from source, as named ones.
        PoolClass = m.Pool ?? (m as unknown as { default: typeof m }).default.Pool;
        if (!PoolClass) throw new Error('undici did not load');
        return this.#create(origin, PoolClass);
      });
    }
    return this.#create(origin, PoolClass);
  }

  #create(origin: string, PoolCtor: typeof Pool): Pool {
    if (this.closed) throw new Error('provider engine is closed');
    const p = new PoolCtor(origin, {
      pipelining: 1,
      connections: this.opts.connections ?? null,
      keepAliveTimeout: this.opts.keepAliveTimeoutMs ?? 30_000,
      // Timeouts are per request (they depend on the call); the pool default must not undercut them.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    this.pools.set(origin, p);
    return p;
  }

  get size(): number {
    return this.pools.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.pools.values()];
    this.pools.clear();
    // destroy, not close: close() would wait for in-flight streams, which a shutdown has already
    // given their grace period before it gets here.
    await Promise.all(all.map((p) => p.destroy().catch(() => {})));
  }
}
