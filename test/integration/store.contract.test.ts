// One contract, both stores: every test below runs against a temp SQLite file and a fresh
// PostgreSQL database, so domain code can rely on identical behaviour.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { it } from 'vitest';
import { StoreBusy, UniqueViolation, type Db } from '../../core/store/types.ts';
import { forEachStore } from '../helpers/stores.ts';

/** A table of its own per test, so tests sharing the suite's database never see each other. */
async function table(db: Db, columns = 'id TEXT PRIMARY KEY, v TEXT'): Promise<string> {
  const name = `t_${randomBytes(4).toString('hex')}`;
  await db.exec(`CREATE TABLE ${name} (${columns})`);
  return name;
}

async function ids(db: Db, t: string): Promise<string[]> {
  return (await db.all<{ id: string }>(`SELECT id FROM ${t} ORDER BY id`)).map((r) => r.id);
}

forEachStore('store contract', (get, dialect) => {
  it('binds ? placeholders in order and leaves a ? inside a string literal alone', async () => {
    const { db } = get();
    // CAST: PostgreSQL types a bare SELECT parameter as text.
    const row = await db.one<{ a: string; q: string; b: number }>("SELECT ? AS a, '?' AS q, CAST(? AS INTEGER) AS b", ['x', 7]);
    assert.deepEqual({ ...row }, { a: 'x', q: '?', b: 7 });
  });

  it('one/all/run: rows, undefined for no row, and changes counts', async () => {
    const { db } = get();
    const t = await table(db, 'id TEXT PRIMARY KEY, n INTEGER NOT NULL');
    for (const [id, n] of [['a', 1], ['b', 2], ['c', 2]] as const) {
      assert.deepEqual(await db.run(`INSERT INTO ${t} (id, n) VALUES (?, ?)`, [id, n]), { changes: 1 });
    }
    assert.deepEqual(await db.run(`UPDATE ${t} SET n = n + 10 WHERE n = ?`, [2]), { changes: 2 });
    assert.deepEqual(await db.run(`UPDATE ${t} SET n = 0 WHERE id = ?`, ['zzz']), { changes: 0 });
    assert.deepEqual((await db.all(`SELECT id, n FROM ${t} ORDER BY id`)).map((r) => ({ ...r })), [
      { id: 'a', n: 1 },
      { id: 'b', n: 12 },
      { id: 'c', n: 12 },
    ]);
    assert.equal(await db.one(`SELECT id FROM ${t} WHERE id = ?`, ['missing']), undefined);
    assert.deepEqual(await db.run(`DELETE FROM ${t} WHERE n > ?`, [10]), { changes: 2 });
    assert.deepEqual(await ids(db, t), ['a']);
  });

  it('returns rows from UPDATE … RETURNING through one()', async () => {
    const { db } = get();
    const t = await table(db, 'id TEXT PRIMARY KEY, n INTEGER NOT NULL');
    await db.run(`INSERT INTO ${t} (id, n) VALUES ('a', 1)`);
    const row = await db.one<{ n: number }>(`UPDATE ${t} SET n = n + 1 WHERE id = ? RETURNING n`, ['a']);
    assert.equal(row?.n, 2);
  });

  it('exec runs a script of several statements', async () => {
    const { db } = get();
    const t = await table(db);
    await db.exec(`INSERT INTO ${t} (id) VALUES ('a'); INSERT INTO ${t} (id) VALUES ('b');`);
    assert.deepEqual(await ids(db, t), ['a', 'b']);
  });

  it('tx commits when the body resolves and returns its value', async () => {
    const { db } = get();
    const t = await table(db);
    const result = await db.tx(async (q) => {
      await q.run(`INSERT INTO ${t} (id) VALUES (?)`, ['a']);
      await q.run(`INSERT INTO ${t} (id) VALUES (?)`, ['b']);
      return 'done';
    });
    assert.equal(result, 'done');
    assert.deepEqual(await ids(db, t), ['a', 'b']);
  });

  it('tx rolls back every statement when the body throws, and rethrows the same error', async () => {
    const { db } = get();
    const t = await table(db);
    const boom = new Error('boom');
    await assert.rejects(
      db.tx(async (q) => {
        await q.run(`INSERT INTO ${t} (id) VALUES (?)`, ['a']);
        throw boom;
      }),
      (err) => err === boom,
    );
    assert.deepEqual(await ids(db, t), []);
  });

  it('maps primary-key and unique violations to UniqueViolation, in and out of tx', async () => {
    const { db } = get();
    const t = await table(db, 'id TEXT PRIMARY KEY NOT NULL, email TEXT UNIQUE, name TEXT NOT NULL');
    await db.run(`INSERT INTO ${t} (id, email, name) VALUES ('a', 'a@x', 'n')`);
    await assert.rejects(db.run(`INSERT INTO ${t} (id, email, name) VALUES ('a', 'other@x', 'n')`), UniqueViolation);
    await assert.rejects(db.run(`INSERT INTO ${t} (id, email, name) VALUES ('b', 'a@x', 'n')`), UniqueViolation);
    await assert.rejects(db.tx((q) => q.run(`INSERT INTO ${t} (id, email, name) VALUES ('c', 'a@x', 'n')`)), UniqueViolation);
    // Other constraint errors are not disguised as a unique violation.
    await assert.rejects(db.run(`INSERT INTO ${t} (id, email, name) VALUES ('d', 'd@x', NULL)`), (err) => err instanceof Error && !(err instanceof UniqueViolation));
    assert.deepEqual(await ids(db, t), ['a']);
  });

  it('returns BIGINT columns, COUNT and SUM as JS numbers', async () => {
    const { db } = get();
    const t = await table(db, 'id TEXT PRIMARY KEY, n BIGINT NOT NULL');
    const big = 2 ** 40 + 3;
    await db.run(`INSERT INTO ${t} (id, n) VALUES (?, ?), (?, ?)`, ['a', big, 'b', 5n]);
    const row = await db.one<{ n: unknown }>(`SELECT n FROM ${t} WHERE id = 'a'`);
    assert.equal(row?.n, big);
    const agg = await db.one<{ c: unknown; s: unknown }>(`SELECT COUNT(*) AS c, SUM(n) AS s FROM ${t}`);
    assert.deepEqual({ c: agg?.c, s: agg?.s }, { c: 2, s: big + 5 });
  });

  it('stores booleans passed as parameters as 0/1', async () => {
    const { db } = get();
    const t = await table(db, 'id TEXT PRIMARY KEY, flag INTEGER NOT NULL');
    await db.run(`INSERT INTO ${t} (id, flag) VALUES (?, ?), (?, ?)`, ['a', true, 'b', false]);
    assert.deepEqual((await db.all(`SELECT flag FROM ${t} ORDER BY id`)).map((r) => r.flag), [1, 0]);
  });

  it('keeps concurrent transactions and plain statements from interleaving', async () => {
    const { db } = get();
    const t = await table(db);
    let releaseA!: () => void;
    const aMayFinish = new Promise<void>((r) => (releaseA = r));
    let aStarted!: () => void;
    const aIsOpen = new Promise<void>((r) => (aStarted = r));

    const a = db.tx(async (q) => {
      await q.run(`INSERT INTO ${t} (id) VALUES ('a1')`);
      aStarted();
      await aMayFinish; // yields to the event loop with the transaction open
      await q.run(`INSERT INTO ${t} (id) VALUES ('a2')`);
      throw new Error('roll A back');
    });
    await aIsOpen;
    const b = db.tx(async (q) => {
      await q.run(`INSERT INTO ${t} (id) VALUES ('b')`);
    });
    const plainWrite = db.run(`INSERT INTO ${t} (id) VALUES ('c')`);
    // On PostgreSQL these finish while A is open (other connections); on SQLite they wait for A.
    // Either way, they must not become part of A and be rolled back with it.
    const plainRead = db.all(`SELECT id FROM ${t} ORDER BY id`);
    await sleep(30);
    releaseA();
    await assert.rejects(a, /roll A back/);
    await Promise.all([b, plainWrite]);
    assert.ok(!(await plainRead).some((r) => String(r.id).startsWith('a')), 'a plain read saw an uncommitted row');
    assert.deepEqual(await ids(db, t), ['b', 'c']);
  });

  it('serializes 50 concurrent read-then-write increments without losing one', async () => {
    const { db } = get();
    const t = await table(db, 'id TEXT PRIMARY KEY, n BIGINT NOT NULL');
    await db.run(`INSERT INTO ${t} (id, n) VALUES ('k', 0)`);
    // PostgreSQL needs the row lock for a read-then-write; SQLite's BEGIN IMMEDIATE already holds
    // the database's write lock (and has no FOR UPDATE).
    const lock = dialect === 'postgres' ? ' FOR UPDATE' : '';
    await Promise.all(
      Array.from({ length: 50 }, () =>
        db.tx(async (q) => {
          const row = await q.one<{ n: number }>(`SELECT n FROM ${t} WHERE id = 'k'${lock}`);
          await sleep(0); // widen the window a lost update would need
          await q.run(`UPDATE ${t} SET n = ? WHERE id = 'k'`, [row!.n + 1]);
        }),
      ),
    );
    assert.equal((await db.one<{ n: number }>(`SELECT n FROM ${t} WHERE id = 'k'`))?.n, 50);
  });

  it('serializes increments from two Db instances on one database', async () => {
    const store = get();
    const other = store.reopen();
    const t = await table(store.db, 'id TEXT PRIMARY KEY, n BIGINT NOT NULL');
    await store.db.run(`INSERT INTO ${t} (id, n) VALUES ('k', 0)`);
    const lock = dialect === 'postgres' ? ' FOR UPDATE' : '';
    const started = Date.now();
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? other : store.db).tx(async (q) => {
          const row = await q.one<{ n: number }>(`SELECT n FROM ${t} WHERE id = 'k'${lock}`);
          await sleep(1);
          await q.run(`UPDATE ${t} SET n = ? WHERE id = 'k'`, [row!.n + 1]);
        }),
      ),
    );
    assert.equal((await store.db.one<{ n: number }>(`SELECT n FROM ${t} WHERE id = 'k'`))?.n, 40);
    // SQLite waits for the other connection's lock on a timer, never by blocking the event loop
    // (which would stall both connections until the 5 s busy timeout).
    assert.ok(Date.now() - started < 4000, `took ${Date.now() - started} ms`);
    await other.close();
  });

  it('routes db.* calls inside a tx body to that transaction', async () => {
    const { db } = get();
    const t = await table(db);
    await assert.rejects(
      db.tx(async () => {
        await db.run(`INSERT INTO ${t} (id) VALUES ('inside')`);
        assert.deepEqual(await ids(db, t), ['inside']);
        throw new Error('undo');
      }),
      /undo/,
    );
    assert.deepEqual(await ids(db, t), []);
  });

  it('runs a nested tx as a savepoint: its failure undoes only its own writes', async () => {
    const { db } = get();
    const t = await table(db);
    await db.tx(async (q) => {
      await q.run(`INSERT INTO ${t} (id) VALUES ('outer')`);
      await assert.rejects(
        db.tx(async (inner) => {
          await inner.run(`INSERT INTO ${t} (id) VALUES ('inner')`);
          throw new Error('inner fails');
        }),
        /inner fails/,
      );
      await db.tx((inner) => inner.run(`INSERT INTO ${t} (id) VALUES ('inner2')`));
    });
    assert.deepEqual(await ids(db, t), ['inner2', 'outer']);
  });

  it('refuses a transaction handle used after its transaction ended', async () => {
    const { db } = get();
    let leaked: Parameters<Parameters<Db['tx']>[0]>[0] | undefined;
    await db.tx(async (q) => {
      leaked = q;
    });
    await assert.rejects(leaked!.one('SELECT 1 AS x'), /after the transaction ended/);
  });

  it('ping answers, close is idempotent, and a closed Db refuses work', async () => {
    const store = get();
    const other = store.reopen();
    await other.ping();
    await other.close();
    await other.close();
    await assert.rejects(other.one('SELECT 1 AS x'));
    await store.db.ping(); // the suite's own Db is unaffected
  });
});

forEachStore('store busy mapping', (get, dialect) => {
  if (dialect === 'sqlite') {
    it('created the missing parent directory of the database file, private to the user', async () => {
      const { statSync } = await import('node:fs');
      const { dirname } = await import('node:path');
      assert.equal(statSync(dirname(get().path!)).mode & 0o777, 0o700);
    });

    it('maps a write lock held past the busy timeout to StoreBusy', async () => {
      const store = get();
      const impatient = store.reopen({ busyTimeoutMs: 100 });
      await store.db.exec('CREATE TABLE IF NOT EXISTS busy_t (id TEXT PRIMARY KEY)');
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      const holder = store.db.tx(async (q) => {
        await q.run("INSERT INTO busy_t (id) VALUES ('holder')");
        locked();
        await held;
      });
      await isLocked;
      await assert.rejects(impatient.tx((q) => q.run("INSERT INTO busy_t (id) VALUES ('x')")), StoreBusy);
      await assert.rejects(impatient.run("INSERT INTO busy_t (id) VALUES ('y')"), StoreBusy);
      release();
      await holder;
      await impatient.run("INSERT INTO busy_t (id) VALUES ('z')");
      await impatient.close();
    });
  } else {
    it('maps an unreachable server to StoreBusy', async () => {
      const { openPostgresDb } = await import('../../core/store/postgres/db.ts');
      const db = openPostgresDb('postgres://postgres@127.0.0.1:1/none', { poolSize: 1, connectTimeoutMs: 1000 });
      await assert.rejects(db.ping(), StoreBusy);
      await assert.rejects(db.tx((q) => q.one('SELECT 1')), StoreBusy);
      await db.close();
    });

    it('survives the server ending an idle pooled connection', async () => {
      const store = get();
      const errors: string[] = [];
      const { openPostgresDb } = await import('../../core/store/postgres/db.ts');
      const { createLogger } = await import('../../core/kernel/log.ts');
      const db = openPostgresDb(store.url!, { poolSize: 2, logger: createLogger('error', (line) => errors.push(line)) });
      const pid = (await db.one<{ pid: number }>('SELECT pg_backend_pid() AS pid'))!.pid;
      await store.db.one('SELECT pg_terminate_backend(?)', [pid]);
      for (let i = 0; i < 500 && errors.length === 0; i++) await sleep(10);
      assert.equal(errors.length, 1, 'the idle client error is logged');
      await db.ping(); // the pool replaced the connection
      await db.close();
    });
  }
});
