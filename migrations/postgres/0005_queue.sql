-- Durable jobs, Workers (automations) and webhook triggers (issue 6).
CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  run_id TEXT,
  payload TEXT NOT NULL DEFAULT '{}',
  -- Idempotency: a scheduler tick or a resume is enqueued once however many times it is offered.
  unique_key TEXT,
  status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
  run_at TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL DEFAULT 20,
  -- The current claim: every write about this job is fenced on it.
  claim_token TEXT,
  claimed_by TEXT,
  claimed_at TEXT,
  lease_until TEXT,
  last_error TEXT,
  created_at TEXT NOT NULL,
  finished_at TEXT
);
-- Partial indexes: an enqueue touches only the indexes its row belongs in (most jobs have no
-- unique key, and only running jobs have a lease worth scanning).
CREATE UNIQUE INDEX jobs_unique_key ON jobs (unique_key) WHERE unique_key IS NOT NULL;
CREATE INDEX jobs_ready ON jobs (status, run_at);
CREATE INDEX jobs_lease ON jobs (lease_until) WHERE status = 'running';
CREATE INDEX jobs_run ON jobs (run_id) WHERE run_id IS NOT NULL;

CREATE TABLE workers (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  owner_user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  input_template TEXT NOT NULL,
  schedule TEXT,
  webhook_ref_hash TEXT UNIQUE,
  webhook_ref_preview TEXT,
  notify_url TEXT,
  enabled INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  deleted_at TEXT
);
CREATE INDEX workers_workspace ON workers (workspace_id);

ALTER TABLE runs ADD COLUMN worker_id TEXT;
ALTER TABLE agents ADD COLUMN webhook_token_hash TEXT;
ALTER TABLE agents ADD COLUMN webhook_token_preview TEXT;
ALTER TABLE agents ADD COLUMN webhook_user_id TEXT;
CREATE UNIQUE INDEX agents_webhook_token ON agents (webhook_token_hash);

-- Processes that announce themselves (serve, worker), to warn when several replicas schedule.
-- (The `processes` table from 0001 holds them; nothing to add here.)
