-- A run that could not be read whole is read again by every crawl. These count the
-- crawls in a row that failed to read it, and say when the crawler stopped trying
-- (a crawl with --retry-given-up tries again), so that one run whose objects stay
-- unreadable does not fail every nightly crawl. Never edit this file once it has
-- shipped: add a migration.
ALTER TABLE runs ADD COLUMN fetch_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN given_up_at TEXT;
