// Migrations whose double application would show; each takes a moment so migrators overlap.
import type { Migration } from '../../core/store/migration-files.ts';
import type { Dialect } from '../../core/store/types.ts';

export function raceMigrations(dialect: Dialect): Migration[] {
  const pause =
    dialect === 'postgres'
      ? 'SELECT pg_sleep(0.05);'
      : 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) SELECT count(*) FROM c;';
  return [
    { version: 1, name: 'race_log', sql: `CREATE TABLE race_log (version INTEGER NOT NULL); INSERT INTO race_log (version) VALUES (1); ${pause}` },
    { version: 2, name: 'race_two', sql: `CREATE TABLE race_two (id INTEGER); INSERT INTO race_log (version) VALUES (2); ${pause}` },
    { version: 3, name: 'race_three', sql: `INSERT INTO race_log (version) VALUES (3); ${pause}` },
  ];
}
