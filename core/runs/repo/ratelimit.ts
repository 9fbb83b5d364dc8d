import type { Queryable } from '../../store/types.ts';

// rate_limit_hits: one row per run start, keyed by an HMAC of the user (ratelimit.ts).

/** Serialises one key's check-and-insert on PostgreSQL; SQLite's write lock already does. */
export async function lockKey(q: Queryable, key: string): Promise<void> {
  if (q.dialect === 'postgres') await q.run('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [key]);
}

export async function dropHitsUpTo(q: Queryable, key: string, edgeIso: string): Promise<void> {
  await q.run('DELETE FROM rate_limit_hits WHERE key = ? AND at <= ?', [key, edgeIso]);
}

/** Count and oldest only: every row made a start O(limit). */
export async function hitWindow(q: Queryable, key: string): Promise<{ n: number | string; oldest: string | null } | undefined> {
  return q.one<{ n: number | string; oldest: string | null }>('SELECT COUNT(*) AS n, MIN(at) AS oldest FROM rate_limit_hits WHERE key = ?', [key]);
}

export async function insertHit(q: Queryable, key: string, atIso: string): Promise<void> {
  await q.run('INSERT INTO rate_limit_hits (key, at) VALUES (?, ?)', [key, atIso]);
}

/** Deletes hits past the window; returns the count. */
export async function pruneRateLimitHits(q: Queryable, beforeIso: string): Promise<number> {
  return (await q.run('DELETE FROM rate_limit_hits WHERE at < ?', [beforeIso])).changes;
}
