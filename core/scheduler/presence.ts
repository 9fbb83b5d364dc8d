import { hostname } from 'node:os';
import type { Clock } from '../kernel/clock.ts';
import type { Logger } from '../kernel/log.ts';
import type { Db } from '../store/types.ts';
import { deleteProcess, liveProcesses, upsertProcess } from './repo.ts';

export const SCHEDULER_PROCESS_KIND = 'scheduler';
const WARN_EVERY_MS = 10 * 60_000;

export interface PresenceOptions {
  db: Db;
  clock: Clock;
  log: Logger;
  /** This process's row id in `processes`. */
  id: string;
  intervalMs?: number;
  /** Mode off allows one replica (SPEC): warn on live peers. */
  warnOnPeers: boolean;
}

/** Heartbeat in `processes`: live for three intervals, pruned after an hour. */
export class Presence {
  readonly #o: Required<PresenceOptions>;
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> | undefined;
  #lastWarn = -Infinity;
  readonly #startedAt: string;

  constructor(o: PresenceOptions) {
    this.#o = { intervalMs: 10_000, ...o };
    this.#startedAt = new Date(o.clock.now()).toISOString();
  }

  start(): void {
    this.#tick();
    this.#timer = setInterval(() => this.#tick(), this.#o.intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#beating;
    await deleteProcess(this.#o.db, this.#o.id).catch(() => {});
  }

  #tick(): void {
    if (this.#beating) return;
    this.#beating = this.beat().then(
      () => {
        this.#beating = undefined;
      },
      (err: unknown) => {
        this.#beating = undefined;
        this.#o.log.warn('scheduler heartbeat failed', { error: (err as Error).message });
      },
    );
  }

  /** One heartbeat; returns the live scheduling processes, this one included. */
  async beat(): Promise<number> {
    const { db, clock, log, id } = this.#o;
    const now = clock.now();
    const nowIso = new Date(now).toISOString();
    await upsertProcess(db, { id, kind: SCHEDULER_PROCESS_KIND, hostname: hostname(), pid: process.pid, startedAt: this.#startedAt, heartbeatAt: nowIso });
    const live = await liveProcesses(db, SCHEDULER_PROCESS_KIND, new Date(now - 3 * this.#o.intervalMs).toISOString());
    if (this.#o.warnOnPeers && live.length > 1 && now - this.#lastWarn >= WARN_EVERY_MS) {
      this.#lastWarn = now;
      log.warn(
        'SERVICE_SCHEDULER_LEADER_MODE=off with several live scheduling processes: every one of them schedules. Ticks are still enqueued once each (unique keys), but use file-lock or http with more than one replica',
        { processes: live.map((p) => `${p.hostname}:${p.pid}`) },
      );
    }
    return live.length;
  }
}
