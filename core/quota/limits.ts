import type { Clock } from '../kernel/clock.ts';
import type { Db } from '../store/types.ts';
import { limitsRow, upsertLimits, type LimitsRow } from './repo.ts';

export interface Limits {
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
  tokensPerMonth: number | null;
}
/** LimitsStore.peek: not cached (or expired); read through workspace()/member(). */
export const MISS: unique symbol = Symbol('limits not cached');
export const NO_LIMITS: Limits = { requestsPerMinute: null, tokensPerMinute: null, tokensPerMonth: null };
export const LIMIT_NAMES = ['requestsPerMinute', 'tokensPerMinute', 'tokensPerMonth'] as const;

const fromRow = (r: LimitsRow | undefined): Limits | undefined =>
  r && { requestsPerMinute: r.requests_per_minute, tokensPerMinute: r.tokens_per_minute, tokensPerMonth: r.tokens_per_month };

/** user_id '' is the workspace; no row means the configured defaults. Cached briefly;
 * writes drop the cache. */
export class LimitsStore {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #defaults: Limits;
  readonly #memberDefaults: Limits;
  // Nested, so a lookup builds no key string.
  readonly #cache = new Map<string, Map<string, { limits: Limits | undefined; until: number }>>();
  readonly #ttlMs: number;

  constructor(deps: { db: Db; clock: Clock }, defaults: Limits, ttlMs = 10_000, memberDefaults: Limits = NO_LIMITS) {
    this.#db = deps.db;
    this.#clock = deps.clock;
    this.#defaults = defaults;
    this.#memberDefaults = memberDefaults;
    this.#ttlMs = ttlMs;
  }

  /** No I/O or allocation: admission calls it on nearly every request. */
  peek(workspaceId: string, userId: string): Limits | typeof MISS {
    const hit = this.#cache.get(workspaceId)?.get(userId);
    if (hit === undefined || hit.until <= this.#clock.now()) return MISS;
    return hit.limits ?? (userId === '' ? this.#defaults : this.#memberDefaults);
  }

  async #get(workspaceId: string, userId: string): Promise<Limits | undefined> {
    const now = this.#clock.now();
    const hit = this.#cache.get(workspaceId)?.get(userId);
    if (hit && hit.until > now) return hit.limits;
    const row = await limitsRow(this.#db, workspaceId, userId);
    const limits = fromRow(row);
    // A concurrent read may have created the map meanwhile.
    let byUser = this.#cache.get(workspaceId);
    if (!byUser) this.#cache.set(workspaceId, (byUser = new Map()));
    byUser.set(userId, { limits, until: now + this.#ttlMs });
    return limits;
  }

  async workspace(workspaceId: string): Promise<Limits> {
    return (await this.#get(workspaceId, '')) ?? this.#defaults;
  }

  async member(workspaceId: string, userId: string): Promise<Limits> {
    return (await this.#get(workspaceId, userId)) ?? this.#memberDefaults;
  }

  async set(workspaceId: string, userId: string, l: Limits): Promise<void> {
    const now = new Date(this.#clock.now()).toISOString();
    await upsertLimits(this.#db, workspaceId, userId, { requests_per_minute: l.requestsPerMinute, tokens_per_minute: l.tokensPerMinute, tokens_per_month: l.tokensPerMonth }, now);
    this.#cache.get(workspaceId)?.delete(userId);
  }
}
