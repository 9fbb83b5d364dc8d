// Reads the store the processes under test share, for the final accounting: run statuses, error
// codes, jobs. Read-only and outside svc, so it cannot change what it measures.
import Database from 'better-sqlite3';
import pg from 'pg';

export interface Reader {
  all<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export function sqliteReader(path: string): Reader {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return {
    all: async <T>(sql: string, params: unknown[] = []) => db.prepare(sql).all(...params) as T[],
    close: async () => {
      db.close();
    },
  };
}

/** A pg client that reconnects: the PostgreSQL fault test terminates connections and restarts the server. */
export function pgReader(url: string): Reader {
  let client: pg.Client | undefined;
  const get = async () => {
    if (client) return client;
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    c.on('error', () => (client = undefined));
    await c.connect();
    return (client = c);
  };
  return {
    async all<T>(sql: string, params: unknown[] = []) {
      let n = 0;
      const text = sql.replace(/\?/g, () => `$${++n}`);
      for (let attempt = 0; ; attempt++) {
        try {
          return (await (await get()).query(text, params)).rows as T[];
        } catch (err) {
          client?.end().catch(() => {});
          client = undefined;
          if (attempt >= 20) throw err;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    },
    close: async () => void (await client?.end().catch(() => {})),
  };
}

export const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'timed_out']);

export interface Accounting {
  total: number;
  byStatus: Record<string, number>;
  /** error_code → count, over failed/timed_out runs. */
  byError: Record<string, number>;
  /** Run ids that got a 202 but have no row. */
  missing: string[];
  nonTerminal: string[];
}

export async function account(r: Reader, accepted: string[]): Promise<Accounting> {
  const rows = await r.all<{ id: string; status: string; error_code: string | null }>('SELECT id, status, error_code FROM runs');
  const by = new Map(rows.map((x) => [x.id, x]));
  const byStatus: Record<string, number> = {};
  const byError: Record<string, number> = {};
  for (const x of rows) {
    byStatus[x.status] = (byStatus[x.status] ?? 0) + 1;
    if (x.error_code) byError[x.error_code] = (byError[x.error_code] ?? 0) + 1;
  }
  return {
    total: rows.length,
    byStatus,
    byError,
    missing: accepted.filter((id) => !by.has(id)),
    nonTerminal: rows.filter((x) => !TERMINAL.has(x.status)).map((x) => x.id),
  };
}

export async function nonTerminalCount(r: Reader): Promise<number> {
  const [row] = await r.all<{ n: number | string }>(`SELECT COUNT(*) AS n FROM runs WHERE status NOT IN ('completed', 'failed', 'cancelled', 'timed_out')`);
  return Number(row?.n ?? 0);
}
