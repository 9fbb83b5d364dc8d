/** One SQL text for both dialects, `?` placeholders; conventions in docs/architecture.md. */
export type Dialect = 'sqlite' | 'postgres';

export type SqlValue = string | number | bigint | null | Uint8Array | boolean;
export type Row = Record<string, unknown>;

export interface RunResult {
  /** Rows inserted, updated or deleted. */
  changes: number;
}

/** Planned once per PostgreSQL connection (docs/performance.md). Keep these few and fixed;
 * no `*`: a plan refuses to run once a migration changes the columns. */
export interface Prepared {
  readonly name: string;
  readonly sql: string;
}

export type Sql = string | Prepared;

const preparedNames = new Map<string, string>();

/** At module level: PostgreSQL refuses a second text under a prepared name. */
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
  /** PostgreSQL: NOTIFY after commit (inside, its global lock defeats group commit); coalesced. */
  notifyAfterCommit?(channel: string): void;
}

export interface Db extends Queryable {
  /** One write transaction; keep it short, on SQLite it holds the only write lock. */
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

/** Busy past its wait budget: 503 + Retry-After. */
export class StoreBusy extends Error {
  constructor(cause: unknown) {
    super('the store is busy', { cause });
    this.name = 'StoreBusy';
  }
}
