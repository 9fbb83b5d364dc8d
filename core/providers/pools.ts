import type { Pool } from 'undici';
import type { Resolver } from '../net/http-guard.ts';
import { guardedConnect, guardedLookup, type AddressPolicy } from '../net/address-guard.ts';

// undici (~870 KB) loads on first use, so commands without model calls skip it.
let undici: Promise<typeof import('undici')> | undefined;
let PoolClass: typeof Pool | undefined;
let buildConnectorFn: typeof import('undici').buildConnector | undefined;

/** Kept-alive pools per origin; pipelining 1, so a slow completion blocks no other call. */
export interface PoolOptions {
  /** Max sockets per origin; undefined = unbounded. */
  connections?: number | undefined;
  keepAliveTimeoutMs?: number | undefined;
  /** For untrusted origins (address-guard.ts). */
  policy: AddressPolicy;
  /** DNS for the guard; tests fake it. */
  resolve?: Resolver | undefined;
}

export class Pools {
  private readonly pools = new Map<string, Pool>();
  private closed = false;
  private readonly opts: PoolOptions;

  #connect: ReturnType<typeof import('undici').buildConnector> | undefined;

  constructor(opts: PoolOptions) {
    this.opts = opts;
  }

  /** `trusted` (LOCAL_LLM_BASE_URL) skips the guard, on its own pools so no account rides on them. */
  get(origin: string, trusted = false): Pool | Promise<Pool> {
    const key = trusted ? `trusted ${origin}` : origin;
    const p = this.pools.get(key);
    if (p) return p;
    if (!PoolClass) {
      return (undici ??= import('undici')).then((m) => {
        // Bundled, the CommonJS package is a default export.
        const u = m.Pool ? m : (m as unknown as { default: typeof m }).default;
        PoolClass = u.Pool;
        buildConnectorFn = u.buildConnector;
        if (!PoolClass || !buildConnectorFn) throw new Error('undici did not load');
        return this.#create(key, origin, trusted, PoolClass);
      });
    }
    return this.#create(key, origin, trusted, PoolClass);
  }

  #create(key: string, origin: string, trusted: boolean, PoolCtor: typeof Pool): Pool {
    if (this.closed) throw new Error('provider engine is closed');
    // Once per engine: it holds the TLS session cache.
    this.#connect ??= guardedConnect(this.opts.policy, buildConnectorFn!({ lookup: guardedLookup(this.opts.policy, this.opts.resolve) }));
    const p = new PoolCtor(origin, {
      ...(trusted ? {} : { connect: this.#connect }),
      pipelining: 1,
      connections: this.opts.connections ?? null,
      keepAliveTimeout: this.opts.keepAliveTimeoutMs ?? 30_000,
      // Per-request timeouts; the pool's must not undercut them.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    this.pools.set(key, p);
    return p;
  }

  get size(): number {
    return this.pools.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.pools.values()];
    this.pools.clear();
    // Not close(): shutdown already gave in-flight streams their grace.
    await Promise.all(all.map((p) => p.destroy().catch(() => {})));
  }
}
