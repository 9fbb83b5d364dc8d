/**
 * The persistence boundary. Domain modules see only these interfaces; `createStore` (the
 * composition root) picks SQLite or PostgreSQL.
 *
 * SQL is written once, with `?` placeholders, in the common subset of both dialects; the
 * PostgreSQL driver rewrites placeholders to `$n`. Where the dialects must differ (queue claims,
 * upserts) a module branches on `db.dialect`.
 *
 * Column conventions that keep rows identical across dialects: times are ISO-8601 UTC text,
 * booleans are integers 0/1, JSON is text, counters are BIGINT returned as JS numbers.
 */
export type Dialect = 'sqlite' | 'postgres';

export type SqlValue = string | number | bigint | null | Uint8Array | boolean;
export type Row = Record<string, unknown>;

export interface RunResult {
  /** Rows inserted, updated or deleted. */
  changes: number;
}

/**
 * A hot statement with fixed text that PostgreSQL parses and plans once per pooled connection
 * (a named server-side prepared statement) instead of on every call; on the queue's paths the
 * parse/plan work was a sixth of the backend's CPU per job. Each name stays allocated on every
 * connection of the pool, so keep it to a handful of statements whose text never varies, and list
 * result columns explicitly: a prepared plan refuses to run once a migration changes the columns
 * a `*` stands for. SQLite caches every statement anyway and uses `sql` as it is.
 */
export interface Prepared {
  readonly name: string;
  readonly sql: string;
}

export type Sql = string | Prepared;

const preparedNames = new Map<string, string>();

/** Declares a prepared statement (at module level). A name means one text for the whole process:
 * PostgreSQL would refuse a second text under a name a connection has already prepared. */
export function prepared(name: string, sql: string): Prepared {
  const known = preparedNames.get(name);
  if (known !== undefined && known !== sql) throw new Error(`prepared statement ${name} declared with two texts`);
  preparedNames.set(name, sql);
  return Object.freeze({ name, sql });
}


export interface Queryable {
  readonly dialect: Dialect;
  all<T = Row>(sql: Sql, params?: readonly SqlValue[]): Promise<T[]>;
  one<T = Row>(sql: Sql, params?: readonly SqlValue[]): Promise<T | undefined>;
  run(sql: Sql, params?: readonly SqlValue[]): Promise<RunResult>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * PostgreSQL only: signal listeners on `channel` once the current transaction has committed (at
   * once outside a transaction). Outside the transaction on purpose: a NOTIFY inside a writing
   * transaction takes a database-wide lock through its commit, which serialises every such commit
   * and defeats group commit. Coalesced: a burst of calls sends a few NOTIFYs, never none after the
   * last call. SQLite has no listeners; it leaves this out.
   */
  notifyAfterCommit?(channel: string): void;
}

export interface Db extends Queryable {
  /**
   * Runs `fn` in one write transaction (SQLite: BEGIN IMMEDIATE, so read-then-write never meets
   * SQLITE_BUSY half-way; PostgreSQL: one pooled connection). Commits when `fn` resolves, rolls back
   * when it throws. Keep the body short: on SQLite it holds the database's single write lock.
   */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Cheap round trip proving the store answers. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Thrown for a unique-constraint violation, in either dialect. */
export class UniqueViolation extends Error {
  constructor(cause: unknown) {
    super('unique constraint violated', { cause });
    this.name = 'UniqueViolation';
  }
}

/** Thrown when the store stays busy/unreachable past its wait budget (maps to 503 + Retry-After). */
export class StoreBusy extends Error {
  constructor(cause: unknown) {
    super('the store is busy', { cause });
    this.name = 'StoreBusy';
  }
}
