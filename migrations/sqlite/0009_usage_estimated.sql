-- 1 when the token counts of a usage row are an estimate: a stream that ended without the
-- upstream's usage (the client went away, the upstream died or stalled, or it never reports usage)
-- is counted from the text it delivered (about 4 characters a token) and from its prompt.
ALTER TABLE usage_events ADD COLUMN estimated INTEGER NOT NULL DEFAULT 0;
