-- Generated apps (issue 16): an app belongs to one run; every create_app call (or run_code's
-- /output) adds an immutable version with its files. Previews serve them by capability token.
CREATE TABLE apps (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  -- Order of the apps within their run (1, 2, …): creation times can tie.
  seq INTEGER NOT NULL,
  title TEXT NOT NULL,
  latest_version INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (run_id, seq),
  -- The same title again in the same run is the next version of that app.
  UNIQUE (run_id, title)
);

CREATE TABLE app_versions (
  app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  entry TEXT NOT NULL,
  file_count INTEGER NOT NULL,
  total_bytes INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (app_id, version)
);

CREATE TABLE app_files (
  app_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  path TEXT NOT NULL,
  size INTEGER NOT NULL,
  content BYTEA NOT NULL,
  PRIMARY KEY (app_id, version, path),
  FOREIGN KEY (app_id, version) REFERENCES app_versions (app_id, version) ON DELETE CASCADE
);
