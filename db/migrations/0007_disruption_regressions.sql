-- What a symptom cost and how long it lasted, and regressions kept across
-- analyses.
--
-- run_disruptions: seconds each backend of a run could not be reached, one
-- row per file and backend, from backend-disruption_*.json (source
-- 'backend-disruption') or, for a run that wrote no such file, summed from
-- the disruption intervals of its events files (source 'events'). A run with
-- several files (one per test phase: upgrade, then conformance) has a row
-- per file, and its disruption is their sum. backend is the entry's Name
-- ("kube-api-new-connections"), backend_name its BackendName ("kube-api"),
-- connection "new" or "reused" (NULL when the file does not say).
-- disrupted_s is NULL when the file gave no duration, which is not zero.
CREATE TABLE run_disruptions (
	job          TEXT NOT NULL,
	build_id     INTEGER NOT NULL,
	file         TEXT NOT NULL,
	backend      TEXT NOT NULL,
	backend_name TEXT,
	connection   TEXT CHECK (connection IN ('new', 'reused')),
	disrupted_s  REAL CHECK (disrupted_s >= 0),
	source       TEXT NOT NULL CHECK (source IN ('backend-disruption', 'events')),
	PRIMARY KEY (job, build_id, file, backend),
	FOREIGN KEY (job, build_id) REFERENCES runs (job, build_id) ON DELETE CASCADE
) STRICT;

-- The runs of one backend, for its percentiles per scope.
CREATE INDEX run_disruptions_backend ON run_disruptions (backend, job, build_id, disrupted_s);

-- The time of the last evidence of a symptom in a run, beside at (the
-- first): together, how long the run showed it. NULL when the evidence has
-- no time.
ALTER TABLE run_symptoms ADD COLUMN last_at TEXT;

-- One row per analysis: when it ran (computed_at, the wall clock) and the
-- time it analysed the database as of (as_of: the newest run's start unless
-- given). report --changes reads what the newest one changed.
CREATE TABLE analyses (
	id          INTEGER PRIMARY KEY,
	computed_at TEXT NOT NULL,
	as_of       TEXT NOT NULL
) STRICT;

-- One row per regression of a symptom in a scope key, kept across analyses.
-- A regression verdict (either comparison) opens it; it stays open while
-- later analyses still find it significant at the looser bar of an open
-- regression (Sippy's hysteresis: confidence 5 points lower, alpha 0.10
-- instead of 0.05, and 2 points less of rise); it closes when they do not,
-- and reopens when a regression verdict comes back. opened_at is when it
-- first opened, reopened_at when it last reopened (reopened counts how often),
-- last_seen_at the last analysis that still found it, first_run the run
-- ("job/build_id") of the sample that first showed the symptom, with its link.
-- The numbers are those of the last analysis that found it.
CREATE TABLE regressions (
	symptom_id    TEXT NOT NULL REFERENCES symptoms (id),
	scope         TEXT NOT NULL,
	scope_key     TEXT NOT NULL,
	status        TEXT NOT NULL CHECK (status IN ('open', 'closed')),
	comparison    TEXT NOT NULL CHECK (comparison IN ('release', 'window')),
	opened_at     TEXT NOT NULL,
	reopened_at   TEXT,
	reopened      INTEGER NOT NULL DEFAULT 0 CHECK (reopened >= 0),
	closed_at     TEXT,
	last_seen_at  TEXT NOT NULL,
	first_run     TEXT,
	first_run_url TEXT,
	sample_label  TEXT NOT NULL,
	sample_runs   INTEGER NOT NULL,
	sample_hits   INTEGER NOT NULL,
	basis_label   TEXT NOT NULL,
	basis_runs    INTEGER NOT NULL,
	basis_hits    INTEGER NOT NULL,
	p_value       REAL CHECK (p_value BETWEEN 0 AND 1),
	PRIMARY KEY (symptom_id, scope, scope_key),
	CHECK ((status = 'closed') = (closed_at IS NOT NULL))
) STRICT;

CREATE INDEX regressions_status ON regressions (status, opened_at);

-- What each analysis changed: a regression opened, reopened or closed.
CREATE TABLE regression_changes (
	analysis_id INTEGER NOT NULL REFERENCES analyses (id),
	symptom_id  TEXT NOT NULL,
	scope       TEXT NOT NULL,
	scope_key   TEXT NOT NULL,
	change      TEXT NOT NULL CHECK (change IN ('opened', 'reopened', 'closed')),
	at          TEXT NOT NULL,
	PRIMARY KEY (analysis_id, symptom_id, scope, scope_key)
) STRICT;

CREATE INDEX regression_changes_at ON regression_changes (at);

-- The disruption of each backend per scope key and comparison, in seconds
-- per run (a run's files summed): how many runs, the median, the 95th
-- percentile and the worst, of the sample and of its basis (the same as
-- symptom_verdicts': the edge one release earlier, or the days before).
-- verdict is 'worse' when the sample's P95 is above the basis's (the
-- job-run aggregator's check), by p95_delta_s seconds; 'ok' when not;
-- 'insufficient' with too few runs on a side. Percentiles interpolate
-- linearly between the closest ranks.
CREATE TABLE disruption_stats (
	backend       TEXT NOT NULL,
	scope         TEXT NOT NULL,
	scope_key     TEXT NOT NULL,
	comparison    TEXT NOT NULL CHECK (comparison IN ('release', 'window')),
	sample_label  TEXT NOT NULL,
	basis_label   TEXT NOT NULL,
	sample_runs   INTEGER NOT NULL CHECK (sample_runs >= 0),
	sample_median REAL,
	sample_p95    REAL,
	sample_max    REAL,
	basis_runs    INTEGER NOT NULL CHECK (basis_runs >= 0),
	basis_median  REAL,
	basis_p95     REAL,
	basis_max     REAL,
	p95_delta_s   REAL,
	verdict       TEXT NOT NULL CHECK (verdict IN ('insufficient', 'ok', 'worse')),
	computed_at   TEXT NOT NULL,
	PRIMARY KEY (backend, scope, scope_key, comparison)
) STRICT;

-- Each run's disruption per backend, its files summed, with what an analyst
-- groups by: the run's link, result, dates, edge and job variants.
CREATE VIEW v_disruption AS
SELECT r.job, r.build_id, r.url, r.result, r.started_at, r.edge, j.platform, j.network, j.arch,
	r.from_version, r.to_version, r.upgrade_state,
	d.backend, d.backend_name, d.connection, count(*) AS files, sum(d.disrupted_s) AS disrupted_s
FROM run_disruptions d
JOIN runs r ON r.job = d.job AND r.build_id = d.build_id
JOIN jobs j ON j.name = r.job
GROUP BY d.job, d.build_id, d.backend;
