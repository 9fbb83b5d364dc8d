/**
 * Who schedules. An elector campaigns in the background and reports every change of leadership;
 * the scheduler only enqueues ticks while it holds leadership. Leadership is advisory: every tick
 * is enqueued under a unique (schedule, tick) key, so even two processes that both believe they
 * lead (a paused process that has not yet noticed it lost the lock) cannot fire a tick twice.
 */
export type LeaderMode = 'off' | 'file-lock' | 'http';

export interface LeaderElector {
  readonly mode: LeaderMode;
  /** Starts campaigning; `onChange` is called on every change (never throws into the elector). */
  start(onChange: (leader: boolean) => void): void;
  isLeader(): boolean;
  /** Stops campaigning and gives leadership up (releases the lock, ends the lease). */
  stop(): Promise<void>;
}

/** `off`: this process always schedules (SPEC: mode off does not disable scheduled work). */
export class AlwaysLeader implements LeaderElector {
  readonly mode = 'off' as const;
  #leader = false;
  #onChange: ((leader: boolean) => void) | undefined;

  start(onChange: (leader: boolean) => void): void {
    this.#onChange = onChange;
    this.#leader = true;
    onChange(true);
  }

  isLeader(): boolean {
    return this.#leader;
  }

  async stop(): Promise<void> {
    if (!this.#leader) return;
    this.#leader = false;
    this.#onChange?.(false);
  }
}
