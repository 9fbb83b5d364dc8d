-- Agents, versions, shares, conversations, runs with their steps (the provider-call ledger),
-- events and approvals, run-start rate limiting, share links (issue 5).
CREATE TABLE agents (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  owner_user_id TEXT NOT NULL REFERENCES users(id),
  name TEXT NOT NULL,
  instructions TEXT NOT NULL,
  provider_account_id TEXT,
  model TEXT,
  tools TEXT NOT NULL DEFAULT '[]',
  settings TEXT NOT NULL DEFAULT '{}',
  shared_with_workspace INTEGER NOT NULL DEFAULT 0,
  latest_version INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX agents_workspace ON agents (workspace_id, created_at);

-- An immutable snapshot: runs execute a version, never the editable draft.
CREATE TABLE agent_versions (
  agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  version INTEGER NOT NULL,
  name TEXT NOT NULL,
  instructions TEXT NOT NULL,
  provider_account_id TEXT,
  model TEXT,
  tools TEXT NOT NULL,
  settings TEXT NOT NULL,
  published_by TEXT NOT NULL,
  published_at TEXT NOT NULL,
  PRIMARY KEY (agent_id, version)
);

CREATE TABLE agent_shares (
  agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  PRIMARY KEY (agent_id, user_id)
);
CREATE INDEX agent_shares_user ON agent_shares (user_id);

CREATE TABLE conversations (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX conversations_user ON conversations (user_id, updated_at);

CREATE TABLE conversation_messages (
  conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  role TEXT NOT NULL,
  content TEXT NOT NULL,
  run_id TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (conversation_id, seq)
);

CREATE TABLE runs (
  id TEXT PRIMARY KEY NOT NULL,
  agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  agent_version INTEGER NOT NULL,
  workspace_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  conversation_id TEXT,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'waiting_input', 'completed', 'failed', 'cancelled', 'timed_out')),
  input_text TEXT NOT NULL,
  output_text TEXT,
  error_message TEXT,
  error_code TEXT,
  approval_id TEXT,
  -- 1: queued through the durable job table; 0: executed in a web process (in-request or fallback).
  durable INTEGER NOT NULL DEFAULT 0,
  -- Fences every state write: only the executor holding the current token may write.
  claim_token TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  -- When the run last entered `running`: the 15-minute limit and the 20-minute abandonment rule
  -- count from here, so queue wait and approval wait never count.
  running_since TEXT,
  finished_at TEXT
);
CREATE INDEX runs_agent_user ON runs (agent_id, user_id, created_at);
CREATE INDEX runs_status ON runs (status, running_since);

-- One row per model call and per tool call. A model step is written as `started` BEFORE the
-- provider is called: a step found `started` with no result is never called again.
CREATE TABLE run_steps (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('model', 'tool')),
  status TEXT NOT NULL CHECK (status IN ('started', 'completed', 'failed', 'waiting_approval', 'rejected')),
  name TEXT,
  call_id TEXT,
  input TEXT,
  output TEXT,
  error TEXT,
  provider TEXT,
  model TEXT,
  input_tokens BIGINT NOT NULL DEFAULT 0,
  cached_tokens BIGINT NOT NULL DEFAULT 0,
  output_tokens BIGINT NOT NULL DEFAULT 0,
  reasoning_tokens BIGINT NOT NULL DEFAULT 0,
  total_tokens BIGINT NOT NULL DEFAULT 0,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  PRIMARY KEY (run_id, seq)
);

CREATE TABLE run_events (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  data TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);

CREATE TABLE approvals (
  id TEXT PRIMARY KEY NOT NULL,
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step_seq INTEGER NOT NULL,
  tool_name TEXT NOT NULL,
  arguments TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
  decided_by TEXT,
  decided_at TEXT,
  -- HMAC (approval secret) over the decision: the executor runs an approved tool only when it verifies.
  signature TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX approvals_run ON approvals (run_id);

-- Sliding-window run-start allowance per user; the key is an HMAC of the user id.
CREATE TABLE rate_limit_hits (
  key TEXT NOT NULL,
  at TEXT NOT NULL
);
CREATE INDEX rate_limit_hits_key ON rate_limit_hits (key, at);

CREATE TABLE shares (
  id TEXT PRIMARY KEY NOT NULL,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('run', 'conversation')),
  target_id TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  preview TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX shares_user ON shares (user_id, created_at);
