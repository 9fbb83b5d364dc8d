// A fresh PostgreSQL database on the local server (127.0.0.1:5432, trust auth) for one test run,
// dropped afterwards. The admin connection goes to the always-present database `test`.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const ADMIN_URL = process.env.SVC_TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export async function createScratchDatabase(prefix = 'svc_test'): Promise<ScratchDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    // FORCE ends sessions a crashed child may have left behind (PostgreSQL 13+).
    drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
