import type { Logger } from '../kernel/log.ts';
import type { LeaderElector } from './leader.ts';

export interface HttpLeaseOptions {
  /** The lease endpoint (SERVICE_SCHEDULER_LEADER_URL). Protocol: docs/scheduler.md. */
  url: string;
  /** Stable for the process's life. */
  holder: string;
  /** Asked for; the server may grant less. */
  ttlMs?: number;
  log: Logger;
  fetch?: typeof fetch;
}

/**
 * `http`: a lease from an external coordinator (protocol: docs/scheduler.md).
 * Counted from sending and dropped on any doubt, so we never outlive the server's lease.
 */
export class HttpLeaseElector implements LeaderElector {
  readonly mode = 'http' as const;
  readonly #url: string;
  readonly #holder: string;
  readonly #ttl: number;
  readonly #log: Logger;
  readonly #fetch: typeof fetch;
  #onChange: (leader: boolean) => void = () => {};
  #leader = false;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  #watchdog: NodeJS.Timeout | undefined;
  #inflight: AbortController | undefined;
  #lastProblem = '';

  constructor(o: HttpLeaseOptions) {
    this.#url = o.url;
    this.#holder = o.holder;
    this.#ttl = o.ttlMs ?? 15_000;
    this.#log = o.log;
    this.#fetch = o.fetch ?? fetch;
  }

  start(onChange: (leader: boolean) => void): void {
    this.#onChange = onChange;
    this.#stopped = false;
    void this.#attempt();
  }

  isLeader(): boolean {
    return this.#leader;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearTimeout(this.#watchdog);
    this.#inflight?.abort();
    const was = this.#leader;
    this.#set(false);
    if (!was) return;
    // Best effort: a failure only makes the standby wait out the TTL.
    await this.#request('DELETE', { holder: this.#holder }, Math.min(2000, this.#ttl)).catch(() => {});
  }

  async #attempt(): Promise<void> {
    if (this.#stopped) return;
    const sentAt = Date.now();
    let granted: number | undefined;
    let problem = '';
    try {
      const res = await this.#request('POST', { holder: this.#holder, ttlMs: this.#ttl }, Math.max(20, Math.floor(this.#ttl / 4)));
      const body = res.body as { leader?: unknown; ttlMs?: unknown } | undefined;
      if (res.status === 200 && body?.leader === true) {
        const t = Number(body.ttlMs ?? this.#ttl);
        granted = Number.isFinite(t) && t > 0 ? Math.min(t, this.#ttl) : this.#ttl;
      } else if (res.status !== 409) {
        problem = `unexpected answer ${res.status}`;
      }
    } catch (err) {
      problem = (err as Error).name === 'AbortError' || (err as Error).name === 'TimeoutError' ? 'timed out' : (err as Error).message;
    }
    if (this.#stopped) return;
    if (granted !== undefined) {
      this.#lastProblem = '';
      // At TTL/2 without a newer renewal, step down.
      clearTimeout(this.#watchdog);
      this.#watchdog = setTimeout(() => this.#doubt('no successful renewal within TTL/2'), Math.max(0, sentAt + granted / 2 - Date.now()));
      this.#watchdog.unref();
      this.#set(true);
      this.#schedule(Math.max(0, sentAt + granted / 3 - Date.now()));
      return;
    }
    if (problem) this.#doubt(problem);
    else this.#set(false); // 409: someone else leads
    this.#schedule(Math.floor(this.#ttl / 3));
  }

  #doubt(problem: string): void {
    if (this.#leader || problem !== this.#lastProblem) {
      this.#log.warn(this.#leader ? 'scheduler lease in doubt; stepping down' : 'scheduler lease request failed', { url: new URL(this.#url).origin, problem });
    }
    this.#lastProblem = problem;
    clearTimeout(this.#watchdog);
    this.#set(false);
  }

  #schedule(ms: number): void {
    clearTimeout(this.#timer);
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#attempt(), ms);
    this.#timer.unref();
  }

  async #request(method: string, body: unknown, timeoutMs: number): Promise<{ status: number; body: unknown }> {
    const ac = new AbortController();
    this.#inflight = ac;
    const t = setTimeout(() => ac.abort(), timeoutMs);
    try {
      const res = await this.#fetch(this.#url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: ac.signal });
      // Same timeout: a server may stall after the headers.
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed };
    } finally {
      clearTimeout(t);
      if (this.#inflight === ac) this.#inflight = undefined;
    }
  }

  #set(leader: boolean): void {
    if (this.#leader === leader) return;
    this.#leader = leader;
    try {
      this.#onChange(leader);
    } catch (err) {
      this.#log.error('scheduler leadership callback failed', { error: err });
    }
  }
}
