import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from '../kernel/log.ts';
import { JOB_CHANNEL } from './repo.ts';

/** Something that says "there may be new work now", so idle workers need not poll fast. */
export interface WakeSource {
  onWake(fn: () => void): void;
  close(): Promise<void>;
}

/**
 * SQLite: every commit writes the WAL file, so a watch on it (inotify) wakes the worker within a
 * millisecond of an enqueue from any process on the host. Spurious wake-ups (our own writes) only
 * cost one empty claim.
 */
export function sqliteWake(dbPath: string, log: Logger): WakeSource {
  let fn: (() => void) | undefined;
  let w: FSWatcher | undefined;
  try {
    const wal = `${basename(dbPath)}-wal`;
    w = watch(dirname(dbPath), { persistent: false }, (_e, name) => {
      if (name === wal || name === basename(dbPath)) fn?.();
    });
  } catch (err) {
    log.warn('no file watch on the database directory; workers poll instead', { error: (err as Error).message });
  }
  return {
    onWake: (f) => (fn = f),
    close: async () => w?.close(),
  };
}

/** PostgreSQL: LISTEN on a dedicated connection; enqueue() NOTIFYs on commit. Reconnects. */
export function postgresWake(url: string, log: Logger): WakeSource {
  let fn: (() => void) | undefined;
  let closed = false;
  let client: import('pg').Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    if (closed) return;
    const pg = (await import('pg')).default;
    const c = new pg.Client({ connectionString: url });
    client = c;
    c.on('notification', () => fn?.());
    c.on('error', (err) => {
      log.warn('job wake-up connection lost; reconnecting', { error: err.message });
      c.end().catch(() => {});
      fn?.(); // poll once: we may have missed a notification
      if (!closed) retry = setTimeout(() => void connect(), 1000);
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${JOB_CHANNEL}`);
      fn?.();
    } catch (err) {
      log.warn('job wake-up connection failed; polling until it returns', { error: (err as Error).message });
      c.end().catch(() => {});
      if (!closed) retry = setTimeout(() => void connect(), 1000);
    }
  };
  void connect();
  return {
    onWake: (f) => (fn = f),
    close: async () => {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
