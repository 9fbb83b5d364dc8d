/**
 * Who schedules. Leadership is advisory: unique tick keys stop a double fire
 * even when two processes both believe they lead.
 */
export type LeaderMode = 'off' | 'file-lock' | 'http';

export interface LeaderElector {
  readonly mode: LeaderMode;
  /** Starts campaigning; `onChange` errors never reach the elector. */
  start(onChange: (leader: boolean) => void): void;
  isLeader(): boolean;
  /** Stops campaigning and releases the lock or lease. */
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
