import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Dialect } from './types.ts';

/** migrations/ from source; the single executable has them inlined by build.mjs. */

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export type MigrationSet = Record<Dialect, Migration[]>;

const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres'];
const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/** Throws unless both dialects hold the same versions, so the two schemas cannot drift. */
export function readMigrationsFromDisk(rootDir: string): MigrationSet {
  return readMigrationsDir(join(rootDir, 'migrations'));
}

export function readMigrationsDir(migrationsDir: string): MigrationSet {
  const set = {} as MigrationSet;
  for (const dialect of DIALECTS) {
    const dir = join(migrationsDir, dialect);
    const list: Migration[] = [];
    for (const file of readdirSync(dir).sort()) {
      if (!file.endsWith('.sql')) continue;
      const m = FILE.exec(file);
      if (!m) throw new Error(`migration file ${join(dir, file)} must be named NNNN_name.sql (lower-case name)`);
      const version = Number(m[1]);
      if (version < 1) throw new Error(`migration ${join(dir, file)}: versions start at 0001`);
      if (list.some((x) => x.version === version)) throw new Error(`migration version ${m[1]} appears twice in ${dir}`);
      list.push({ version, name: m[2]!, sql: readFileSync(join(dir, file), 'utf8') });
    }
    set[dialect] = list;
  }
  checkSameVersions(set);
  return set;
}

function checkSameVersions(set: MigrationSet): void {
  const key = (list: Migration[]) => list.map((m) => `${String(m.version).padStart(4, '0')}_${m.name}`).join(', ');
  if (key(set.sqlite) !== key(set.postgres)) {
    throw new Error(
      `migrations differ between dialects: sqlite has [${key(set.sqlite)}], postgres has [${key(set.postgres)}]; every number needs a file in both`,
    );
  }
}

let fromDisk: MigrationSet | undefined;

/** This binary's migrations for `dialect`, by version. */
export function knownMigrations(dialect: Dialect): Migration[] {
  const inlined = (globalThis as { __SVC_MIGRATIONS__?: MigrationSet }).__SVC_MIGRATIONS__;
  if (inlined !== undefined) return [...inlined[dialect]].sort((a, b) => a.version - b.version);
  fromDisk ??= readMigrationsDir(fileURLToPath(new URL('../../migrations/', import.meta.url)));
  return fromDisk[dialect];
}
