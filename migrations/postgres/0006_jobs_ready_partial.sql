-- The claim looks only at queued jobs, yet the (status, run_at) index held every job ever run:
-- each claim and each completion (status changes, so never a HOT update on PostgreSQL) added an
-- entry to it, and done jobs stayed in it until pruned. Partial on queued, it gets one entry per
-- enqueue (or retry) and stays as small as the backlog.
DROP INDEX jobs_ready;
CREATE INDEX jobs_ready ON jobs (run_at) WHERE status = 'queued';
