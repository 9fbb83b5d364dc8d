import type { Clock } from '../kernel/clock.ts';
import type { Principal } from '../credentials/types.ts';
import { AppError } from '../kernel/errors.ts';
import type { Db } from '../store/types.ts';
import { tokensSince } from '../usage/repo.ts';
import { MISS, type Limits, type LimitsStore } from './limits.ts';
import { formatReset, SlidingWindow } from './window.ts';

type ScopeName = 'workspace' | 'member' | 'key';
const SCOPES: readonly ScopeName[] = ['workspace', 'member', 'key'];

interface ScopeState {
  requests: SlidingWindow;
  tokens: SlidingWindow;
  month: { key: string; tokens: number; loaded: Promise<void> | undefined; syncedAt: number; ready: boolean } | undefined;
}

export interface Admission {
  /** OpenAI's x-ratelimit-* headers for this response. */
  headers: Record<string, string>;
  /** Counts the tokens a served call used against every scope's minute and month. */
  settle(tokens: number): void;
}

export interface QuotaView {
  limits: Record<ScopeName, Limits>;
  effective: Limits;
  consumed: { requestsThisMinute: number; tokensThisMinute: number; tokensThisMonth: number };
  remaining: Limits;
}

const MONTH_RESYNC_MS = 5 * 60_000;
const monthKey = (ms: number) => new Date(ms).toISOString().slice(0, 7);
const nextMonthStart = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};
const tightest = (values: (number | null)[]): number | null => {
  const set = values.filter((v): v is number => v !== null);
  return set.length === 0 ? null : Math.min(...set);
};

/** Tightest of workspace, member and key. Tokens are counted after the call, so in-flight calls
 * may overshoot; minute windows are per process, months resync from the usage table. */
export class QuotaService {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #limits: LimitsStore;
  readonly #flushUsage: () => Promise<void>;
  readonly #scopes = new Map<string, ScopeState>();
  // Keyed by the cached principal object, so admission rebuilds nothing.
  readonly #perPrincipal = new WeakMap<Principal, { states: ScopeState[]; limits: Record<ScopeName, Limits> | undefined }>();

  constructor(deps: { db: Db; clock: Clock; limits: LimitsStore; flushUsage: () => Promise<void> }) {
    this.#db = deps.db;
    this.#clock = deps.clock;
    this.#limits = deps.limits;
    this.#flushUsage = deps.flushUsage;
  }

  get limitsStore(): LimitsStore {
    return this.#limits;
  }

  #entry(p: Principal): { states: ScopeState[]; limits: Record<ScopeName, Limits> | undefined } {
    let e = this.#perPrincipal.get(p);
    if (e === undefined) this.#perPrincipal.set(p, (e = { states: this.#states(p), limits: undefined }));
    return e;
  }

  /** Synchronous when cached; else undefined. */
  #cachedLimits(p: Principal): Record<ScopeName, Limits> | undefined {
    const workspace = this.#limits.peek(p.workspaceId!, '');
    if (workspace === MISS) return undefined;
    const member = this.#limits.peek(p.workspaceId!, p.userId);
    if (member === MISS) return undefined;
    const e = this.#entry(p);
    const last = e.limits;
    if (last !== undefined && last.workspace === workspace && last.member === member) return last;
    const k = p.limits;
    return (e.limits = { workspace, member, key: { requestsPerMinute: k.requestsPerMinute ?? null, tokensPerMinute: k.tokensPerMinute ?? null, tokensPerMonth: k.tokensPerMonth ?? null } });
  }

  async #scopeLimits(p: Principal): Promise<Record<ScopeName, Limits>> {
    const cached = this.#cachedLimits(p);
    if (cached !== undefined) return cached;
    const ws = p.workspaceId!;
    const [workspace, member] = await Promise.all([this.#limits.workspace(ws), this.#limits.member(ws, p.userId)]);
    const k = p.limits;
    return { workspace, member, key: { requestsPerMinute: k.requestsPerMinute ?? null, tokensPerMinute: k.tokensPerMinute ?? null, tokensPerMonth: k.tokensPerMonth ?? null } };
  }

  #keys(p: Principal): Record<ScopeName, string> {
    return { workspace: `w:${p.workspaceId}`, member: `m:${p.workspaceId}:${p.userId}`, key: `k:${p.credentialId}` };
  }

  /** The workspace, member and key scope states of a principal, in that order. */
  #states(p: Principal): ScopeState[] {
    const keys = this.#keys(p);
    return [this.#state(keys.workspace), this.#state(keys.member), this.#state(keys.key)];
  }

  #state(key: string): ScopeState {
    let s = this.#scopes.get(key);
    if (!s) this.#scopes.set(key, (s = { requests: new SlidingWindow(), tokens: new SlidingWindow(), month: undefined }));
    return s;
  }

  /** Reloaded every few minutes to see other replicas; only the first load is awaited. */
  #month(p: Principal, scope: ScopeName, s: ScopeState, now: number): Promise<void> | undefined {
    const key = monthKey(now);
    if (!s.month || s.month.key !== key) s.month = { key, tokens: 0, loaded: undefined, syncedAt: 0, ready: false };
    const m = s.month;
    if (m.loaded) return m.ready ? undefined : m.loaded;
    if (m.ready && now - m.syncedAt < MONTH_RESYNC_MS) return undefined;
    const before = m.tokens;
    const filter =
      scope === 'workspace' ? { workspaceId: p.workspaceId! }
      : scope === 'member' ? { workspaceId: p.workspaceId!, userId: p.userId }
      : { workspaceId: p.workspaceId!, credentialId: p.credentialId };
    const loading = this.#flushUsage()
      .then(() => tokensSince(this.#db, filter, `${key}-01`))
      .then((stored) => {
        // Tokens settled while the query ran are on top of what it saw.
        m.tokens = stored + (m.tokens - before);
        m.syncedAt = now;
        m.ready = true;
      })
      .finally(() => (m.loaded = undefined));
    m.loaded = loading;
    if (m.ready) {
      loading.catch(() => {}); // a failed background resync keeps the old total
      return undefined;
    }
    return loading;
  }

  async admit(p: Principal): Promise<Admission> {
    // No await when cached, so check-and-count stays in one tick.
    const limits = this.#cachedLimits(p) ?? (await this.#scopeLimits(p));
    const states = this.#entry(p).states;
    let now = this.#clock.now();
    let loads: Promise<void>[] | undefined;
    for (let i = 0; i < SCOPES.length; i++) {
      if (limits[SCOPES[i]!].tokensPerMonth === null) continue;
      const load = this.#month(p, SCOPES[i]!, states[i]!, now);
      if (load) (loads ??= []).push(load);
    }
    if (loads) {
      await Promise.all(loads);
      now = this.#clock.now();
    }
    // Check every scope before counting in any, so a refusal leaves no trace.
    for (let i = 0; i < SCOPES.length; i++) {
      const l = limits[SCOPES[i]!];
      const s = states[i]!;
      if (l.requestsPerMinute !== null && s.requests.total(now) >= l.requestsPerMinute) {
        throw this.#refuse(`${SCOPES[i]} request limit (${l.requestsPerMinute}/min) reached`, s.requests.msUntilAtMost(now, l.requestsPerMinute - 1), limits, states, now);
      }
      if (l.tokensPerMinute !== null && s.tokens.total(now) >= l.tokensPerMinute) {
        throw this.#refuse(`${SCOPES[i]} token limit (${l.tokensPerMinute}/min) reached`, s.tokens.msUntilAtMost(now, l.tokensPerMinute - 1), limits, states, now);
      }
      if (l.tokensPerMonth !== null && (s.month?.tokens ?? 0) >= l.tokensPerMonth) {
        throw this.#refuse(`${SCOPES[i]} monthly token limit (${l.tokensPerMonth}) reached`, nextMonthStart(now) - now, limits, states, now);
      }
    }
    for (const s of states) s.requests.add(now);
    const headers = this.#headers(limits, states, now);
    return {
      headers,
      settle: (tokens: number) => {
        if (!(tokens > 0)) return;
        const t = this.#clock.now();
        for (const s of states) {
          s.tokens.add(t, tokens);
          if (s.month && s.month.key === monthKey(t)) s.month.tokens += tokens;
        }
      },
    };
  }

  #headers(limits: Record<ScopeName, Limits>, states: ScopeState[], now: number): Record<string, string> {
    const h: Record<string, string> = {};
    this.#tightestHeader(h, 'requests', 'requestsPerMinute', true, limits, states, now);
    this.#tightestHeader(h, 'tokens', 'tokensPerMinute', false, limits, states, now);
    return h;
  }

  /** From the scope with least remaining; ties take the lower limit. */
  #tightestHeader(h: Record<string, string>, dim: string, field: 'requestsPerMinute' | 'tokensPerMinute', requests: boolean, limits: Record<ScopeName, Limits>, states: ScopeState[], now: number): void {
    let best = -1;
    let bestLimit = 0;
    let bestRemaining = 0;
    for (let i = 0; i < SCOPES.length; i++) {
      const limit = limits[SCOPES[i]!][field];
      if (limit === null) continue;
      const w = requests ? states[i]!.requests : states[i]!.tokens;
      const remaining = Math.max(0, limit - w.total(now));
      if (best < 0 || remaining < bestRemaining || (remaining === bestRemaining && limit < bestLimit)) {
        best = i;
        bestLimit = limit;
        bestRemaining = remaining;
      }
    }
    if (best < 0) return;
    const w = requests ? states[best]!.requests : states[best]!.tokens;
    h[`x-ratelimit-limit-${dim}`] = String(bestLimit);
    h[`x-ratelimit-remaining-${dim}`] = String(bestRemaining);
    h[`x-ratelimit-reset-${dim}`] = formatReset(w.msUntilEmpty(now));
  }

  #refuse(why: string, retryMs: number, limits: Record<ScopeName, Limits>, states: ScopeState[], now: number): AppError {
    const seconds = Math.max(1, Math.ceil(retryMs / 1000));
    return new AppError('rate_limit_exceeded', `Rate limit exceeded: ${why}. Retry in ${seconds} s.`, {
      headers: { ...this.#headers(limits, states, now), 'retry-after': String(seconds) },
    });
  }

  /** Without counting a request (/models). */
  async headersFor(p: Principal): Promise<Record<string, string>> {
    const limits = await this.#scopeLimits(p);
    const states = this.#states(p);
    return this.#headers(limits, states, this.#clock.now());
  }

  /** Effective limits and current consumption for GET /api/v1/quota. */
  async view(p: Principal): Promise<QuotaView> {
    const limits = await this.#scopeLimits(p);
    const names = SCOPES;
    const now = this.#clock.now();
    const states = this.#states(p);
    await Promise.all(names.map((n, i) => this.#month(p, n, states[i]!, now)));
    const effective: Limits = {
      requestsPerMinute: tightest(names.map((n) => limits[n].requestsPerMinute)),
      tokensPerMinute: tightest(names.map((n) => limits[n].tokensPerMinute)),
      tokensPerMonth: tightest(names.map((n) => limits[n].tokensPerMonth)),
    };
    const remainingOf = (field: keyof Limits, used: (s: ScopeState) => number) =>
      tightest(names.map((n, i) => (limits[n][field] === null ? null : Math.max(0, limits[n][field]! - used(states[i]!)))));
    const key = states[2]!;
    return {
      limits,
      effective,
      consumed: { requestsThisMinute: key.requests.total(now), tokensThisMinute: key.tokens.total(now), tokensThisMonth: key.month?.tokens ?? 0 },
      remaining: {
        requestsPerMinute: remainingOf('requestsPerMinute', (s) => s.requests.total(now)),
        tokensPerMinute: remainingOf('tokensPerMinute', (s) => s.tokens.total(now)),
        tokensPerMonth: remainingOf('tokensPerMonth', (s) => s.month?.tokens ?? 0),
      },
    };
  }
}
