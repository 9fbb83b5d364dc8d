import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../kernel/log.ts';
import type { LeaderElector } from './leader.ts';

export interface FileLockOptions {
  /** A directory, created atomically with mkdir. */
  path: string;
  /** An older lock is taken over: a dead holder frees leadership this fast. */
  staleMs?: number;
  /** Holder's mtime refresh interval (well under staleMs). */
  updateMs?: number;
  /** How often a non-leader tries again. */
  retryMs?: number;
  log: Logger;
}

/** `file-lock`: a lock on a path every replica reaches; compromised means step down at once. */
export class FileLockElector implements LeaderElector {
  readonly mode = 'file-lock' as const;
  readonly #o: Required<Omit<FileLockOptions, 'log'>>;
  readonly #log: Logger;
  #onChange: (leader: boolean) => void = () => {};
  #leader = false;
  #stopped = false;
  #release: (() => Promise<void>) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #attempting: Promise<void> | undefined;
  #lastError = '';

  constructor(o: FileLockOptions) {
    const staleMs = Math.max(2000, o.staleMs ?? 10_000); // proper-lockfile's floor
    this.#o = { path: o.path, staleMs, updateMs: o.updateMs ?? Math.min(2500, staleMs / 4), retryMs: o.retryMs ?? 500 };
    this.#log = o.log;
  }

  start(onChange: (leader: boolean) => void): void {
    this.#onChange = onChange;
    this.#stopped = false;
    this.#attempt();
  }

  isLeader(): boolean {
    return this.#leader;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#attempting;
    const release = this.#release;
    this.#release = undefined;
    this.#set(false);
    // So a standby need not wait out the stale period.
    if (release) await release().catch((err: unknown) => this.#log.warn('scheduler lock release failed', { error: (err as Error).message }));
  }

  #attempt(): void {
    if (this.#stopped || this.#leader) return;
    this.#attempting = this.#tryLock().finally(() => {
      this.#attempting = undefined;
      if (!this.#stopped && !this.#leader) this.#retryLater();
    });
  }

  #retryLater(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#attempt(), this.#o.retryMs);
    this.#timer.unref();
  }

  async #tryLock(): Promise<void> {
    let release: () => Promise<void>;
    try {
      mkdirSync(dirname(this.#o.path), { recursive: true });
      // Lazy: its dependencies load only in file-lock mode.
      const { default: lockfile } = await import('proper-lockfile');
      release = await lockfile.lock(this.#o.path, {
        lockfilePath: this.#o.path,
        realpath: false,
        retries: 0,
        stale: this.#o.staleMs,
        update: this.#o.updateMs,
        onCompromised: (err) => this.#compromised(release, err),
      });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      // ELOCKED is normal for a standby; log other errors once each.
      if (e.code !== 'ELOCKED' && e.message !== this.#lastError) {
        this.#lastError = e.message;
        this.#log.warn('scheduler lock could not be taken; retrying', { path: this.#o.path, error: e.message });
      }
      return;
    }
    this.#lastError = '';
    if (this.#stopped) {
      await release().catch(() => {});
      return;
    }
    this.#release = release;
    this.#set(true);
  }

  /** Must never throw: proper-lockfile calls it from a timer callback. */
  #compromised(release: (() => Promise<void>) | undefined, err: Error): void {
    try {
      if (this.#release !== release) return; // an older lock of ours, already given up
      this.#release = undefined;
      this.#log.error('scheduler lock compromised; stepping down', { path: this.#o.path, error: err.message });
      this.#set(false);
      if (!this.#stopped) this.#retryLater();
    } catch {
      // the next attempt starts clean
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
