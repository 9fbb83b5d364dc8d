-- Inference gateway: provider accounts, limits, usage, router settings (issue 4).
CREATE TABLE provider_accounts (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  provider TEXT NOT NULL,
  name TEXT NOT NULL,
  -- Model ids are `<slug>/<model>`; the slug defaults to the provider id and is unique per workspace.
  slug TEXT NOT NULL,
  base_url TEXT,
  api_key_enc TEXT,
  key_last4 TEXT,
  -- JSON array of upstream model ids that bounds the catalogue; NULL: ask the provider.
  models TEXT,
  enabled INTEGER NOT NULL DEFAULT 1,
  created_by TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE UNIQUE INDEX provider_accounts_slug ON provider_accounts (workspace_id, slug) WHERE deleted_at IS NULL;

-- user_id '' holds the workspace-wide limits; a user id holds that member's limits.
CREATE TABLE gateway_limits (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL,
  requests_per_minute INTEGER,
  tokens_per_minute INTEGER,
  tokens_per_month BIGINT,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (workspace_id, user_id)
);

CREATE TABLE usage_events (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  credential_id TEXT,
  source TEXT NOT NULL,
  provider TEXT NOT NULL,
  account_id TEXT NOT NULL,
  model TEXT NOT NULL,
  status INTEGER NOT NULL,
  input_tokens BIGINT NOT NULL,
  cached_tokens BIGINT NOT NULL,
  output_tokens BIGINT NOT NULL,
  reasoning_tokens BIGINT NOT NULL,
  total_tokens BIGINT NOT NULL,
  latency_ms INTEGER NOT NULL,
  day TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX usage_events_workspace_day ON usage_events (workspace_id, day);
CREATE INDEX usage_events_user_day ON usage_events (workspace_id, user_id, day);
CREATE INDEX usage_events_credential_day ON usage_events (credential_id, day);

CREATE TABLE workspace_settings (
  workspace_id TEXT PRIMARY KEY NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  conduit TEXT NOT NULL DEFAULT '{}',
  updated_at TEXT NOT NULL
);
