// The test harness's PostgreSQL: a missing server is one line naming the variable to set, and the
// fault tests restart a private server, never the shared one.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createScratchDatabase } from '../helpers/pgdb.ts';
import { startPrivatePostgres } from '../helpers/private-postgres.ts';
import { freePort } from '../helpers/binary.ts';

test('no PostgreSQL at the admin URL: the error names SVC_TEST_PG_ADMIN_URL', async () => {
  const port = await freePort(); // nothing listens there
  await assert.rejects(createScratchDatabase('svc_x', `postgres://postgres@127.0.0.1:${port}/test`), (err: Error) => {
    assert.match(err.message, /SVC_TEST_PG_ADMIN_URL/);
    assert.doesNotMatch(err.message, /\n/);
    return true;
  });
});

test('a private PostgreSQL starts on its own port, restarts and stops', { timeout: 120_000 }, async () => {
  const server = await startPrivatePostgres();
  try {
    assert.notEqual(server.port, 5432);
    const query = async () => {
      const c = new pg.Client({ connectionString: server.adminUrl });
      await c.connect();
      try {
        return (await c.query('SELECT pg_postmaster_start_time() AS t')).rows[0].t as Date;
      } finally {
        await c.end();
      }
    };
    const first = await query();
    server.restart();
    assert.ok((await query()) > first, 'the server restarted');
  } finally {
    server.stop();
  }
  const c = new pg.Client({ connectionString: server.adminUrl, connectionTimeoutMillis: 1000 });
  await assert.rejects(c.connect(), 'the server is gone after stop()');
});
