import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../kernel/log.ts';
import type { LeaderElector } from './leader.ts';

export interface FileLockOptions {
  /** The lock (a directory proper-lockfile creates atomically with mkdir). */
  path: string;
  /** A lock whose mtime is older than this is taken over: a holder that died (kill -9, power loss)
   * frees leadership after at most this long. */
  staleMs?: number;
  /** How often the holder refreshes the lock's mtime (well under staleMs). */
  updateMs?: number;
  /** How often a non-leader tries again. */
  retryMs?: number;
  log: Logger;
}

/**
 * `file-lock`: leadership is holding a proper-lockfile lock on a path every replica can reach (one
 * host, or a shared filesystem with working mtimes). The holder refreshes the lock's mtime every
 * `updateMs`; a contender takes over a lock not refreshed for `staleMs`. When the holder learns its
 * lock was taken over or could not be refreshed in time (a long pause, the file removed), proper-
 * lockfile calls onCompromised: it steps down at once and campaigns again like any contender.
 */
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
    // Released promptly so a standby takes over now rather than after the stale period.
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
      // Imported here, not at the top: every `svc serve` and `svc worker` loads this module, and
      // proper-lockfile brings graceful-fs, signal-exit and node:assert with it, which only the
      // file-lock mode needs.
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
      // ELOCKED is the normal answer for a standby; anything else (permissions, a missing mount)
      // is worth saying, once per distinct error.
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
      // nothing sensible left to do; the next attempt starts from a clean state
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
