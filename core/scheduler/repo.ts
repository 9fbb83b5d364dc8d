import type { Queryable } from '../store/types.ts';

/** The only SQL on processes (scheduling processes' heartbeats). */

export async function upsertProcess(q: Queryable, p: { id: string; kind: string; hostname: string; pid: number; startedAt: string; heartbeatAt: string }): Promise<void> {
  await q.run(
    `INSERT INTO processes (id, kind, hostname, pid, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`,
    [p.id, p.kind, p.hostname, p.pid, p.startedAt, p.heartbeatAt],
  );
}

/** Processes of `kind` whose heartbeat is later than `since`. */
export async function liveProcesses(q: Queryable, kind: string, since: string): Promise<{ id: string; hostname: string; pid: number }[]> {
  return q.all<{ id: string; hostname: string; pid: number }>('SELECT id, hostname, pid FROM processes WHERE kind = ? AND heartbeat_at > ? ORDER BY id', [kind, since]);
}

export async function deleteProcess(q: Queryable, id: string): Promise<void> {
  await q.run('DELETE FROM processes WHERE id = ?', [id]);
}

/** Deletes processes whose last heartbeat is before `before`; how many. */
export async function pruneProcesses(q: Queryable, before: string): Promise<number> {
  return (await q.run('DELETE FROM processes WHERE heartbeat_at < ?', [before])).changes;
}
