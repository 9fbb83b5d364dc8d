import type { Pool } from 'undici';
import type { Resolver } from '../net/http-guard.ts';
import { guardedConnect, guardedLookup, type AddressPolicy } from '../net/address-guard.ts';

// undici (~870 KB) is loaded on the first upstream call, not at start: `svc serve` starts faster
// and commands that never call a model never parse it.
let undici: Promise<typeof import('undici')> | undefined;
let PoolClass: typeof Pool | undefined;
let buildConnectorFn: typeof import('undici').buildConnector | undefined;

/**
 * One undici Pool per upstream origin, created on first use and kept for the engine's life:
 * connections stay alive between calls (no TCP/TLS handshake per request), pipelining stays at 1
 * (a slow completion must never hold up the one queued behind it on the same socket).
 */
export interface PoolOptions {
  /** Max sockets per origin; undefined = unbounded. */
  connections?: number | undefined;
  keepAliveTimeoutMs?: number | undefined;
  /** Which addresses untrusted origins may connect to (address-guard.ts). */
  policy: AddressPolicy;
  /** DNS for the guard (tests play DNS); default: the system resolver. */
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

  /**
   * The origin's pool; a promise only until undici has been loaded once. `trusted` (the operator's
   * LOCAL_LLM_BASE_URL only) skips the address guard; it gets pools of its own, so an account
   * naming the same origin never rides on a trusted connection.
   */
  get(origin: string, trusted = false): Pool | Promise<Pool> {
    const key = trusted ? `trusted ${origin}` : origin;
    const p = this.pools.get(key);
    if (p) return p;
    if (!PoolClass) {
      return (undici ??= import('undici')).then((m) => {
        // Bundled, the CommonJS package arrives as a default export; from source, as named ones.
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
    // Built once per engine (it holds the TLS session cache), as undici builds its default one.
    this.#connect ??= guardedConnect(this.opts.policy, buildConnectorFn!({ lookup: guardedLookup(this.opts.policy, this.opts.resolve) }));
    const p = new PoolCtor(origin, {
      ...(trusted ? {} : { connect: this.#connect }),
      pipelining: 1,
      connections: this.opts.connections ?? null,
      keepAliveTimeout: this.opts.keepAliveTimeoutMs ?? 30_000,
      // Timeouts are per request (they depend on the call); the pool default must not undercut them.
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
    // destroy, not close: close() would wait for in-flight streams, which a shutdown has already
    // given their grace period before it gets here.
    await Promise.all(all.map((p) => p.destroy().catch(() => {})));
  }
}
