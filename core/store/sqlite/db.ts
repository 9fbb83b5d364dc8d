import { AsyncLocalStorage } from 'node:async_hooks';
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { Mutex } from '../mutex.ts';
import { StoreBusy, UniqueViolation, type Db, type Queryable, type Row, type RunResult, type Sql, type SqlValue } from '../types.ts';

/** One shared connection: others' statements wait out an open transaction; its owner,
 * found by AsyncLocalStorage, may use `db` inside `tx` without deadlocking. */

export interface SqliteDbOptions {
  /** Wait for another process's write lock. */
  busyTimeoutMs?: number;
  /** Prepared statements kept per connection (oldest evicted first). */
  statementCacheSize?: number;
  /** Change nothing (`svc doctor`). */
  readonly?: boolean;
}

interface TxFrame {
  active: boolean;
}

type Statement = Database.Statement<unknown[], unknown>;
type BindValue = string | number | bigint | null | Buffer;

const DEFAULT_BUSY_TIMEOUT_MS = 5000;
const DEFAULT_STATEMENT_CACHE = 500;

export function openSqliteDb(path: string, opts: SqliteDbOptions = {}): Db {
  const busyTimeoutMs = opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  if (path !== ':memory:' && !opts.readonly) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    ownerOnly(path);
  }
  // The single executable hands over its embedded addon.
  const addon = (globalThis as { __SVC_SQLITE_ADDON__?: object }).__SVC_SQLITE_ADDON__;
  const options: Database.Options = { timeout: busyTimeoutMs, ...(opts.readonly ? { readonly: true, fileMustExist: true } : {}) };
  if (addon !== undefined) (options as { nativeBinding?: unknown }).nativeBinding = addon;
  const conn = new Database(path, options);
  try {
    if (!opts.readonly) conn.pragma('journal_mode = WAL');
    conn.pragma(`busy_timeout = ${busyTimeoutMs}`);
    conn.pragma('synchronous = NORMAL');
    conn.pragma('foreign_keys = ON');
  } catch (err) {
    conn.close();
    throw mapSqliteError(err);
  }
  return new SqliteDb(conn, busyTimeoutMs, opts.statementCacheSize ?? DEFAULT_STATEMENT_CACHE);
}

/** 0600 before SQLite opens it (-wal and -shm copy its mode): it holds hashes and keys. */
function ownerOnly(path: string): void {
  closeSync(openSync(path, 'a', 0o600));
  for (const p of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      if ((statSync(p).mode & 0o077) !== 0) chmodSync(p, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

export class SqliteDb implements Db {
  readonly dialect = 'sqlite' as const;
  readonly #conn: Database.Database;
  readonly #busyTimeoutMs: number;
  readonly #cacheSize: number;
  readonly #statements = new Map<string, Statement>();
  readonly #mutex = new Mutex();
  readonly #als = new AsyncLocalStorage<TxFrame>();
  /** The transaction currently open on the connection, if any. */
  #open: TxFrame | null = null;
  #savepoints = 0;
  #closed = false;

  constructor(conn: Database.Database, busyTimeoutMs: number, cacheSize: number) {
    this.#conn = conn;
    this.#busyTimeoutMs = busyTimeoutMs;
    this.#cacheSize = cacheSize;
  }

  async all<T = Row>(sql: Sql, params?: readonly SqlValue[]): Promise<T[]> {
    await this.#awaitTurn();
    return this.#all<T>(sql, params);
  }

  async one<T = Row>(sql: Sql, params?: readonly SqlValue[]): Promise<T | undefined> {
    await this.#awaitTurn();
    return this.#one<T>(sql, params);
  }

  async run(sql: Sql, params?: readonly SqlValue[]): Promise<RunResult> {
    await this.#awaitTurn();
    return this.#run(sql, params);
  }

  async exec(sql: string): Promise<void> {
    await this.#awaitTurn();
    this.#exec(sql);
  }

  async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    const outer = this.#als.getStore();
    if (outer?.active) return this.#nested(outer, fn);
    const release = await this.#mutex.lock();
    try {
      this.#assertOpen();
      await this.#beginImmediate();
      const frame: TxFrame = { active: true };
      this.#open = frame;
      try {
        const result = await this.#als.run(frame, () => fn(this.#handle(frame)));
        this.#exec('COMMIT');
        return result;
      } catch (err) {
        this.#rollbackQuietly('ROLLBACK');
        throw mapSqliteError(err);
      } finally {
        frame.active = false;
        this.#open = null;
      }
    } finally {
      release();
    }
  }

  async ping(): Promise<void> {
    await this.one('SELECT 1 AS ok');
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    // Let a running transaction finish.
    const release = await this.#mutex.lock();
    try {
      this.#closed = true;
      this.#statements.clear();
      this.#conn.close();
    } finally {
      release();
    }
  }

  /** Waits out another caller's open transaction. */
  async #awaitTurn(): Promise<void> {
    while (this.#open !== null && this.#open !== this.#als.getStore()) await this.#mutex.whenReleased();
  }

  /** Write lock up front, retried on a timer: SQLite's busy handler would block the event loop. */
  async #beginImmediate(): Promise<void> {
    const deadline = Date.now() + this.#busyTimeoutMs;
    let delay = 1;
    for (;;) {
      this.#stmt('PRAGMA busy_timeout = 0').run();
      try {
        this.#conn.exec('BEGIN IMMEDIATE');
        return;
      } catch (err) {
        const mapped = mapSqliteError(err);
        if (!(mapped instanceof StoreBusy) || Date.now() >= deadline) throw mapped;
      } finally {
        this.#stmt(`PRAGMA busy_timeout = ${this.#busyTimeoutMs}`).run();
      }
      await sleep(delay + Math.random() * delay);
      delay = Math.min(delay * 2, 50);
    }
  }

  /** A tx() inside a tx() body becomes a savepoint of the open transaction. */
  async #nested<T>(frame: TxFrame, fn: (q: Queryable) => Promise<T>): Promise<T> {
    const name = `svc_sp_${++this.#savepoints}`;
    this.#exec(`SAVEPOINT ${name}`);
    try {
      const result = await fn(this.#handle(frame));
      this.#exec(`RELEASE ${name}`);
      return result;
    } catch (err) {
      this.#rollbackQuietly(`ROLLBACK TO ${name}; RELEASE ${name}`);
      throw mapSqliteError(err);
    }
  }

  /** Refuses use after its transaction ended. */
  #handle(frame: TxFrame): Queryable {
    const check = () => {
      if (!frame.active) throw new Error('transaction handle used after the transaction ended');
    };
    return {
      dialect: 'sqlite',
      all: async <T = Row>(sql: Sql, params?: readonly SqlValue[]) => (check(), this.#all<T>(sql, params)),
      one: async <T = Row>(sql: Sql, params?: readonly SqlValue[]) => (check(), this.#one<T>(sql, params)),
      run: async (sql: Sql, params?: readonly SqlValue[]) => (check(), this.#run(sql, params)),
      exec: async (sql: string) => (check(), this.#exec(sql)),
    };
  }

  #all<T>(sql: Sql, params?: readonly SqlValue[]): T[] {
    try {
      const stmt = this.#stmt(sql);
      if (!stmt.reader) {
        stmt.run(...bind(params));
        return [];
      }
      return stmt.all(...bind(params)) as T[];
    } catch (err) {
      throw mapSqliteError(err);
    }
  }

  #one<T>(sql: Sql, params?: readonly SqlValue[]): T | undefined {
    try {
      const stmt = this.#stmt(sql);
      if (!stmt.reader) {
        stmt.run(...bind(params));
        return undefined;
      }
      return stmt.get(...bind(params)) as T | undefined;
    } catch (err) {
      throw mapSqliteError(err);
    }
  }

  #run(sql: Sql, params?: readonly SqlValue[]): RunResult {
    try {
      return { changes: this.#stmt(sql).run(...bind(params)).changes };
    } catch (err) {
      throw mapSqliteError(err);
    }
  }

  #exec(sql: string): void {
    this.#assertOpen();
    try {
      this.#conn.exec(sql);
    } catch (err) {
      throw mapSqliteError(err);
    }
  }

  #rollbackQuietly(sql: string): void {
    if (this.#closed || !this.#conn.inTransaction) return;
    try {
      this.#conn.exec(sql);
    } catch {
      // Report the original error; SQLite rolls back abandoned transactions.
    }
  }

  #stmt(sql: Sql): Statement {
    this.#assertOpen();
    if (typeof sql !== 'string') sql = sql.sql;
    let stmt = this.#statements.get(sql);
    if (stmt === undefined) {
      stmt = this.#conn.prepare(sql) as Statement;
      if (this.#statements.size >= this.#cacheSize) {
        const oldest = this.#statements.keys().next().value;
        if (oldest !== undefined) this.#statements.delete(oldest);
      }
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('the database is closed');
  }
}

function bind(params: readonly SqlValue[] | undefined): BindValue[] {
  if (params === undefined || params.length === 0) return [];
  return params.map((p) => {
    if (typeof p === 'boolean') return p ? 1 : 0;
    if (p instanceof Uint8Array && !Buffer.isBuffer(p)) return Buffer.from(p.buffer, p.byteOffset, p.byteLength);
    return p as BindValue;
  });
}

/** SQLite codes to the store's dialect-neutral errors. */
export function mapSqliteError(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return err;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return new UniqueViolation(err);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return new StoreBusy(err);
  return err;
}
