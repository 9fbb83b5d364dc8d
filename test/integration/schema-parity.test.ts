// The two migrated schemas describe one data model: the same tables, the same columns (with the
// same nullability) and the same named indexes over the same columns, on SQLite and PostgreSQL.
import { afterAll, beforeAll, test } from 'vitest';
import assert from 'node:assert/strict';
import { migrate } from '../../core/store/index.ts';
import type { Db } from '../../core/store/types.ts';
import { freshDb, type FreshDb } from '../helpers/stores.ts';

interface Shape {
  tables: Record<string, string[]>;
  indexes: Record<string, string>;
}

async function sqliteShape(db: Db): Promise<Shape> {
  const tables: Shape['tables'] = {};
  const indexes: Shape['indexes'] = {};
  const names = await db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
  for (const { name } of names) {
    const cols = await db.all<{ name: string; notnull: number; pk: number }>(`PRAGMA table_info("${name}")`);
    tables[name] = cols.map((c) => `${c.name}${c.notnull || c.pk ? ' not null' : ''}`).sort();
    for (const idx of await db.all<{ name: string; unique: number; origin: string }>(`PRAGMA index_list("${name}")`)) {
      if (idx.origin !== 'c') continue; // primary keys and UNIQUE constraints are compared as columns
      const on = await db.all<{ name: string }>(`PRAGMA index_info("${idx.name}")`);
      indexes[idx.name] = `${idx.unique ? 'unique ' : ''}${name}(${on.map((c) => c.name).join(', ')})`;
    }
  }
  return { tables, indexes };
}

async function postgresShape(db: Db): Promise<Shape> {
  const tables: Shape['tables'] = {};
  const indexes: Shape['indexes'] = {};
  const cols = await db.all<{ table_name: string; column_name: string; is_nullable: string }>(
    "SELECT table_name, column_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, column_name",
  );
  for (const c of cols) (tables[c.table_name] ??= []).push(`${c.column_name}${c.is_nullable === 'NO' ? ' not null' : ''}`);
  for (const t of Object.values(tables)) t.sort();
  const idx = await db.all<{ index: string; table: string; unique: boolean; columns: string }>(
    `SELECT i.relname AS index, t.relname AS table, x.indisunique AS unique,
            string_agg(a.attname, ', ' ORDER BY k.ord) AS columns
       FROM pg_index x
       JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = 'public'
       JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord) ON true
       JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      WHERE NOT x.indisprimary
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
      GROUP BY i.relname, t.relname, x.indisunique`,
  );
  for (const r of idx) indexes[r.index] = `${r.unique ? 'unique ' : ''}${r.table}(${r.columns})`;
  return { tables, indexes };
}

let stores: FreshDb[] = [];
beforeAll(async () => {
  stores = await Promise.all([freshDb('sqlite'), freshDb('postgres')]);
  for (const s of stores) await migrate(s.db);
});
afterAll(() => Promise.all(stores.map((s) => s.cleanup())));

test('SQLite and PostgreSQL migrate to the same tables, columns and indexes', async () => {
  const [lite, pg] = [await sqliteShape(stores[0]!.db), await postgresShape(stores[1]!.db)];
  assert.ok(Object.keys(lite.tables).length >= 10, 'the introspection found the tables');
  assert.ok(Object.keys(lite.indexes).length >= 10, 'the introspection found the indexes');
  assert.deepEqual(Object.keys(pg.tables).sort(), Object.keys(lite.tables).sort(), 'tables');
  for (const table of Object.keys(lite.tables)) assert.deepEqual(pg.tables[table], lite.tables[table], `columns of ${table}`);
  assert.deepEqual(pg.indexes, lite.indexes, 'indexes');
});
