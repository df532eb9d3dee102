-- The first schema: jobs, their runs, the tests and errors of each run, the symptom
-- catalogue and its matches, where each job's crawl stopped, and a log of crawls.
-- Timestamps are RFC 3339 UTC text (2006-01-02T15:04:05Z), so that sqlite3's date
-- functions read them. Never edit this file once it has shipped: add a migration.

-- One row per job name. Every column but name is derived from the name alone.
CREATE TABLE jobs (
	name         TEXT PRIMARY KEY,
	type         TEXT,
	release      TEXT,
	from_release TEXT,
	upgrade      TEXT,
	platform     TEXT,
	network      TEXT,
	arch         TEXT
) STRICT;

-- One row per run of a job. release, from_release and upgrade are the run's own
-- (from its artifacts), which old job names without a version need.
CREATE TABLE runs (
	job           TEXT NOT NULL REFERENCES jobs (name),
	build_id      INTEGER NOT NULL,
	bucket        TEXT NOT NULL,
	path          TEXT NOT NULL,
	url           TEXT NOT NULL,
	started_at    TEXT,
	finished_at   TEXT,
	result        TEXT NOT NULL CHECK (result IN ('success', 'failure', 'aborted', 'error', 'pending')),
	release       TEXT,
	from_release  TEXT,
	upgrade       TEXT,
	from_version  TEXT,
	to_version    TEXT,
	upgrade_state TEXT CHECK (upgrade_state IN ('Completed', 'Partial')),
	tag           TEXT,
	from_tag      TEXT,
	pull          INTEGER,
	fetch_status  TEXT NOT NULL CHECK (fetch_status IN ('complete', 'partial', 'error')),
	fetch_error   TEXT,
	objects_read  INTEGER NOT NULL DEFAULT 0,
	bytes_read    INTEGER NOT NULL DEFAULT 0,
	crawled_at    TEXT NOT NULL,
	PRIMARY KEY (job, build_id)
) STRICT;

CREATE INDEX runs_started_at ON runs (started_at);
CREATE INDEX runs_result ON runs (result);
CREATE INDEX runs_release ON runs (release, from_release);
-- What the crawler asks: which jobs a bucket holds, and the runs of one job there.
CREATE INDEX runs_bucket_job ON runs (bucket, job, build_id);

-- One row per test case of a run. A test that failed and passed in the same run is
-- a flake. A rowid table, not WITHOUT ROWID: with the long key, every entry of
-- tests_name_status would carry the whole primary key, and writes are a third slower.
CREATE TABLE tests (
	job        TEXT NOT NULL,
	build_id   INTEGER NOT NULL,
	suite      TEXT NOT NULL,
	name       TEXT NOT NULL,
	status     TEXT NOT NULL CHECK (status IN ('pass', 'fail', 'flake', 'skip')),
	duration_s REAL,
	message    TEXT,
	PRIMARY KEY (job, build_id, suite, name),
	FOREIGN KEY (job, build_id) REFERENCES runs (job, build_id) ON DELETE CASCADE
) STRICT;

CREATE INDEX tests_name_status ON tests (name, status);

-- The symptom catalogue: built-in rules and those of a rules file.
CREATE TABLE symptoms (
	id          TEXT PRIMARY KEY,
	title       TEXT NOT NULL,
	description TEXT,
	bug         TEXT,
	source      TEXT NOT NULL
) STRICT;

-- The symptoms a run shows, with its first evidence.
CREATE TABLE run_symptoms (
	job        TEXT NOT NULL,
	build_id   INTEGER NOT NULL,
	symptom_id TEXT NOT NULL REFERENCES symptoms (id),
	hits       INTEGER NOT NULL,
	file       TEXT,
	line       INTEGER,
	excerpt    TEXT,
	at         TEXT,
	PRIMARY KEY (job, build_id, symptom_id),
	FOREIGN KEY (job, build_id) REFERENCES runs (job, build_id) ON DELETE CASCADE
) STRICT;

CREATE INDEX run_symptoms_symptom ON run_symptoms (symptom_id);

-- Artifacts of a run that could not be read or parsed, or were too large.
CREATE TABLE run_errors (
	job      TEXT NOT NULL,
	build_id INTEGER NOT NULL,
	object   TEXT NOT NULL,
	kind     TEXT NOT NULL CHECK (kind IN ('read', 'parse', 'size')),
	message  TEXT NOT NULL,
	FOREIGN KEY (job, build_id) REFERENCES runs (job, build_id) ON DELETE CASCADE
) STRICT;

-- Without it every delete of a run's errors, and every cascade, scans the table.
CREATE INDEX run_errors_run ON run_errors (job, build_id);

-- Where the last crawl of a job stopped: the highest build id up to which every
-- listed run was stored. It never moves backwards.
CREATE TABLE crawl_cursors (
	bucket     TEXT NOT NULL,
	job        TEXT NOT NULL,
	build_id   INTEGER NOT NULL,
	started_at TEXT,
	updated_at TEXT NOT NULL,
	PRIMARY KEY (bucket, job)
) STRICT;

-- A log of crawls: one row per invocation, finished_at NULL while it runs (or if it
-- died).
CREATE TABLE crawls (
	id           INTEGER PRIMARY KEY,
	started_at   TEXT NOT NULL,
	finished_at  TEXT,
	command      TEXT NOT NULL,
	bucket       TEXT NOT NULL,
	jobs         INTEGER,
	new_runs     INTEGER,
	updated_runs INTEGER,
	pending      INTEGER,
	errors       INTEGER,
	objects_read INTEGER,
	bytes_read   INTEGER,
	status       TEXT
) STRICT;
