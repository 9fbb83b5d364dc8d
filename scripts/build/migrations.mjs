// Reads migrations/{sqlite,postgres}/NNNN_name.sql for inlining into the bundle. Prefers the store's
// own reader (core/store/migrations.ts) so the build and the runner agree on naming rules; the local
// fallback only exists for builds made before the store lands.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const DIALECTS = ['sqlite', 'postgres'];

export async function readMigrations(rootDir) {
  const storeReader = join(rootDir, 'core/store/migrations.ts');
  if (existsSync(storeReader)) {
    const mod = await import(pathToFileURL(storeReader).href);
    if (typeof mod.readMigrationsFromDisk === 'function') return mod.readMigrationsFromDisk(rootDir);
  }
  return readLocally(rootDir);
}

function readLocally(rootDir) {
  const out = {};
  for (const dialect of DIALECTS) {
    const dir = join(rootDir, 'migrations', dialect);
    const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.sql')).sort() : [];
    out[dialect] = files.map((file) => {
      const m = /^(\d+)_(.+)\.sql$/.exec(file);
      if (!m) throw new Error(`migrations/${dialect}/${file}: expected NNNN_name.sql`);
      return { version: Number(m[1]), name: m[2], sql: readFileSync(join(dir, file), 'utf8') };
    });
  }
  return out;
}
