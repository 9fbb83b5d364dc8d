import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import type { Logger } from '../../kernel/log.ts';
import { type Db, type Queryable, type Row, type RunResult, type Sql, type SqlValue } from '../types.ts';
import { isConnectionError, mapPgError } from './errors.ts';
import { toPgPlaceholders } from './placeholders.ts';

/** Inside `tx`, `db` itself uses the transaction's client (AsyncLocalStorage), as on SQLite;
 * a nested `tx` is a savepoint, not a connection waiting on the first's locks. */

export interface PostgresDbOptions {
  poolSize: number;
  /** Gets errors of idle pooled clients. */
  logger?: Logger;
  /** Wait for a connection before StoreBusy. */
  connectTimeoutMs?: number;
}

interface TxFrame {
  client: pg.PoolClient;
  active: boolean;
  /** Channels to notify once the transaction commits. */
  notify?: Set<string>;
}

/** Least gap between NOTIFYs on a channel; the first goes at once. */
const NOTIFY_GAP_MS = 5;

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** BIGINT and numeric as numbers, on this pool only: a global override affects every pg user. */
const typeParsers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

export function openPostgresDb(connectionString: string, opts: PostgresDbOptions): Db {
  const pool = new pg.Pool({
    connectionString,
    max: opts.poolSize,
    types: typeParsers,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
    idleTimeoutMillis: 30_000,
    application_name: 'svc',
  });
  // Unhandled, an idle client's 'error' would crash the process.
  pool.on('error', (err) => {
    opts.logger?.error('PostgreSQL idle connection failed', { err: { message: err.message, code: (err as { code?: string }).code } });
  });
  return new PostgresDb(pool);
}

export class PostgresDb implements Db {
  readonly dialect = 'postgres' as const;
  readonly #pool: pg.Pool;
  readonly #als = new AsyncLocalStorage<TxFrame>();
  #savepoints = 0;
  #closed = false;
  readonly #notifying = new Map<string, 'sending' | 'again'>();

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async all<T = Row>(sql: Sql, params?: readonly SqlValue[]): Promise<T[]> {
    return (await this.#query(this.#target(), sql, params)).rows as T[];
  }

  async one<T = Row>(sql: Sql, params?: readonly SqlValue[]): Promise<T | undefined> {
    return (await this.#query(this.#target(), sql, params)).rows[0] as T | undefined;
  }

  async run(sql: Sql, params?: readonly SqlValue[]): Promise<RunResult> {
    return { changes: (await this.#query(this.#target(), sql, params)).rowCount ?? 0 };
  }

  async exec(sql: string): Promise<void> {
    await this.#script(this.#target(), sql);
  }

  async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    const outer = this.#als.getStore();
    if (outer?.active) return this.#nested(outer, fn);
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (err) {
      throw mapPgError(err);
    }
    // A failed rollback may leave it in a transaction: destroy it.
    let broken: Error | undefined;
    // pg-pool drops its 'error' listener at checkout; a lost connection would end the process.
    const onError = (err: Error) => {
      broken ??= err;
    };
    client.on('error', onError);
    const frame: TxFrame = { client, active: true };
    try {
      await this.#script(client, 'BEGIN');
      try {
        const result = await this.#als.run(frame, () => fn(this.#handle(frame)));
        await this.#script(client, 'COMMIT');
        for (const channel of frame.notify ?? []) this.notifyAfterCommit(channel);
        return result;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackErr) {
          broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
        }
        throw err;
      }
    } catch (err) {
      if (broken === undefined && isConnectionError(err)) broken = new Error('connection failed during transaction');
      throw mapPgError(err);
    } finally {
      frame.active = false;
      client.removeListener('error', onError);
      client.release(broken);
    }
  }

  notifyAfterCommit(channel: string): void {
    const frame = this.#als.getStore();
    if (frame?.active) {
      (frame.notify ??= new Set()).add(channel);
      return;
    }
    const state = this.#notifying.get(channel);
    if (state) {
      this.#notifying.set(channel, 'again');
      return;
    }
    let started = 0;
    const send = (): void => {
      this.#notifying.set(channel, 'sending');
      started = performance.now();
      this.#pool
        .query({ name: 'svc_notify', text: 'SELECT pg_notify($1, $2)', values: [channel, ''] })
        .catch(() => {}) // listeners also poll: a lost wake-up only delays a pickup
        .finally(() => {
          if (this.#notifying.get(channel) !== 'again' || this.#closed) {
            this.#notifying.delete(channel);
            return;
          }
          // One wake-up per gap suffices: an awake worker claims until the table is empty.
          const wait = started + NOTIFY_GAP_MS - performance.now();
          if (wait <= 0) send();
          else setTimeout(send, wait);
        });
    };
    send();
  }

  async ping(): Promise<void> {
    await this.#query(this.#pool, 'SELECT 1 AS ok');
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }

  #target(): pg.Pool | pg.PoolClient {
    const frame = this.#als.getStore();
    return frame?.active ? frame.client : this.#pool;
  }

  async #nested<T>(frame: TxFrame, fn: (q: Queryable) => Promise<T>): Promise<T> {
    const name = `svc_sp_${++this.#savepoints}`;
    await this.#script(frame.client, `SAVEPOINT ${name}`);
    try {
      const result = await fn(this.#handle(frame));
      await this.#script(frame.client, `RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (err) {
      try {
        await frame.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      } catch {
        // The outer transaction then fails and rolls back whole.
      }
      throw mapPgError(err);
    }
  }

  #handle(frame: TxFrame): Queryable {
    const client = (): pg.PoolClient => {
      if (!frame.active) throw new Error('transaction handle used after the transaction ended');
      return frame.client;
    };
    return {
      dialect: 'postgres',
      all: async <T = Row>(sql: Sql, params?: readonly SqlValue[]) => (await this.#query(client(), sql, params)).rows as T[],
      one: async <T = Row>(sql: Sql, params?: readonly SqlValue[]) => (await this.#query(client(), sql, params)).rows[0] as T | undefined,
      run: async (sql: Sql, params?: readonly SqlValue[]) => ({ changes: (await this.#query(client(), sql, params)).rowCount ?? 0 }),
      exec: async (sql: string) => this.#script(client(), sql),
      notifyAfterCommit: (channel: string) => {
        client();
        (frame.notify ??= new Set()).add(channel);
      },
    };
  }

  async #query(target: pg.Pool | pg.PoolClient, sql: Sql, params?: readonly SqlValue[]): Promise<pg.QueryResult> {
    try {
      if (typeof sql !== 'string') return await target.query({ name: sql.name, text: toPgPlaceholders(sql.sql), values: bind(params) });
      return await target.query(toPgPlaceholders(sql), bind(params));
    } catch (err) {
      throw mapPgError(err);
    }
  }

  /** Simple protocol: several statements, no parameters. */
  async #script(target: pg.Pool | pg.PoolClient, sql: string): Promise<void> {
    try {
      await target.query(sql);
    } catch (err) {
      throw mapPgError(err);
    }
  }
}

function bind(params: readonly SqlValue[] | undefined): unknown[] | undefined {
  if (params === undefined || params.length === 0) return undefined;
  // Booleans are INTEGER 0/1; pg would send 'true'.
  return params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));
}
