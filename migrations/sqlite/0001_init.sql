-- 0001_init (SQLite): the instance identity and the process registry.
-- Conventions shared with the PostgreSQL schema: times are ISO-8601 UTC text, booleans are
-- INTEGER 0/1, JSON is TEXT, counters are INTEGER (64-bit in SQLite).
-- TEXT primary keys say NOT NULL: SQLite (unlike PostgreSQL) lets a non-INTEGER primary key be NULL.

-- One row: this installation's id, created on first start.
CREATE TABLE instance (
  id TEXT PRIMARY KEY NOT NULL,
  created_at TEXT NOT NULL
);

-- Every running svc process (serve, worker) heartbeats here, so several replicas on one store
-- can be detected and reported.
CREATE TABLE processes (
  id TEXT PRIMARY KEY NOT NULL,
  kind TEXT NOT NULL,
  hostname TEXT NOT NULL,
  pid INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  heartbeat_at TEXT NOT NULL
);
CREATE INDEX processes_heartbeat_at ON processes (heartbeat_at);
