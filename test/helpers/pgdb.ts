// A fresh PostgreSQL database per run on SVC_TEST_PG_ADMIN_URL (default 127.0.0.1:5432, trust).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const ADMIN_URL = process.env.SVC_TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export async function createScratchDatabase(prefix = 'svc_test', adminUrl = ADMIN_URL): Promise<ScratchDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = (sql: string) => adminQuery(adminUrl, sql);
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    // FORCE ends sessions a crashed child may have left behind (PostgreSQL 13+).
    drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (err) {
    const where = new URL(adminUrl).host;
    throw new Error(`no PostgreSQL for the tests at ${where} (${(err as Error).message}): start one, or set SVC_TEST_PG_ADMIN_URL to a server the tests may create databases on`);
  }
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
