-- The workbench (issue 14). The active workspace is remembered on the session (DESIGN.md
-- "Accounts, sessions, roles"); NULL means the user's own workspace.
ALTER TABLE sessions ADD COLUMN active_workspace_id TEXT;
-- The run list page: the caller's runs in one workspace, newest first, paginated by (created_at, id).
CREATE INDEX runs_workspace_user ON runs (workspace_id, user_id, created_at);
