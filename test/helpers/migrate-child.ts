// A migrator process that starts at a set time, so several really race.
// Usage: node migrate-child.ts <sqlite|postgres> <path|url> <startAtEpochMs>
import { setTimeout as sleep } from 'node:timers/promises';
import { migrate } from '../../core/store/migrations.ts';
import { openPostgresDb } from '../../core/store/postgres/db.ts';
import { openSqliteDb } from '../../core/store/sqlite/db.ts';
import { raceMigrations } from './race-migrations.ts';

const [dialect, target, startAt] = process.argv.slice(2);
if ((dialect !== 'sqlite' && dialect !== 'postgres') || !target || !startAt) {
  process.stderr.write('usage: migrate-child.ts <sqlite|postgres> <path|url> <startAtEpochMs>\n');
  process.exit(2);
}
const db = dialect === 'sqlite' ? openSqliteDb(target) : openPostgresDb(target, { poolSize: 2 });
await sleep(Math.max(0, Number(startAt) - Date.now()));
try {
  const applied = await migrate(db, { migrations: raceMigrations(dialect) });
  process.stdout.write(JSON.stringify(applied.map((m) => m.version)) + '\n');
} finally {
  await db.close();
}
