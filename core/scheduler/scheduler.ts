import type { Clock } from '../kernel/clock.ts';
import type { Logger } from '../kernel/log.ts';
import type { Db } from '../store/types.ts';
import type { LeaderElector } from './leader.ts';
import { Presence } from './presence.ts';
import { CATCH_UP_MS, TickPlanner } from './ticks.ts';

export interface SchedulerOptions {
  db: Db;
  clock: Clock;
  log: Logger;
  elector: LeaderElector;
  /** This process's identity (processes row, lease holder, logs). */
  id: string;
  /** Tick interval; ticks are aligned to multiples of it (60 s: on the minute). */
  tickMs: number;
  /** svc_scheduler_leader. */
  leaderGauge?: { set(value: number): void };
  presenceMs?: number;
}

/** While leading, enqueues each tick's jobs; any queue worker runs them. */
export class Scheduler {
  readonly id: string;
  readonly #o: SchedulerOptions;
  readonly #planner: TickPlanner;
  readonly #presence: Presence;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = false;
  /** The `now` of this leadership's previous tick: cron minutes up to it are already handled. */
  #since: number | undefined;

  constructor(o: SchedulerOptions) {
    this.#o = o;
    this.id = o.id;
    this.#planner = new TickPlanner(o.db, o.log);
    this.#presence = new Presence({ db: o.db, clock: o.clock, log: o.log, id: o.id, warnOnPeers: o.elector.mode === 'off', ...(o.presenceMs ? { intervalMs: o.presenceMs } : {}) });
  }

  get mode() {
    return this.#o.elector.mode;
  }

  isLeader(): boolean {
    return this.#o.elector.isLeader();
  }

  start(): void {
    this.#stopped = false;
    this.#o.leaderGauge?.set(0);
    this.#presence.start();
    this.#o.elector.start((leader) => this.#onLeadership(leader));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
    await this.#o.elector.stop();
    await this.#presence.stop();
    this.#o.leaderGauge?.set(0);
  }

  /** Enqueues one tick idempotently; returns the keys inserted. Public for tests and tools. */
  async tick(tickMs: number, nowMs = this.#o.clock.now()): Promise<string[]> {
    const inserted = await this.#planner.run(tickMs, nowMs, this.#since ?? nowMs - CATCH_UP_MS);
    this.#since = nowMs;
    this.#o.log.debug('scheduler tick', { scheduler: this.id, tick: new Date(tickMs).toISOString(), enqueued: inserted.length });
    return inserted;
  }

  #onLeadership(leader: boolean): void {
    this.#o.leaderGauge?.set(leader ? 1 : 0);
    clearTimeout(this.#timer);
    if (leader) {
      this.#o.log.info('scheduler leading', { scheduler: this.id, mode: this.mode });
      this.#since = undefined; // a new leadership looks back over the catch-up window
      this.#loop();
    } else if (!this.#stopped) {
      this.#o.log.info('scheduler stepped down', { scheduler: this.id, mode: this.mode });
    }
  }

  #loop(): void {
    if (this.#stopped || !this.isLeader() || this.#running) return;
    const { clock, tickMs, log } = this.#o;
    const t = Math.floor(clock.now() / tickMs) * tickMs;
    this.#running = this.tick(t)
      .catch((err: unknown) => log.warn('scheduler tick failed; the next tick retries', { error: (err as Error).message }))
      .finally(() => {
        this.#running = undefined;
        if (this.#stopped || !this.isLeader()) return;
        clearTimeout(this.#timer);
        this.#timer = setTimeout(() => this.#loop(), Math.max(1, t + tickMs - clock.now()));
        this.#timer.unref();
      });
  }
}
