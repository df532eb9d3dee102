-- The analysis: per symptom and scope, its rate and a verdict against a basis
-- (symptom_verdicts); per test and scope, its flake rate (test_flake_rates).
-- analyze replaces both tables in one transaction. The views compute rates
-- live from the runs, for analysts with sqlite3.
--
-- Scopes and their keys:
--   job      the job name;
--   edge     the run's upgrade edge: "4.13->4.14 minor", or "4.14 micro" when
--            the run starts and ends in one release (a z-stream); an unknown
--            upgrade kind is "-". Runs without a release have no edge;
--   variant  the edge, then the job's platform, network and arch, each "-"
--            when NULL: "4.13->4.14 minor aws ovn amd64".
-- A finished run is one with result success, failure or error; a failed run
-- is a finished run that did not succeed.

-- The run's edge, as the scope key above. Virtual: computed when read, so the
-- crawler's writes do not change, and indexable.
ALTER TABLE runs ADD COLUMN edge TEXT GENERATED ALWAYS AS (
	CASE
		WHEN release IS NULL THEN NULL
		WHEN from_release IS NULL OR from_release = release THEN release || ' ' || coalesce(upgrade, '-')
		ELSE from_release || '->' || release || ' ' || coalesce(upgrade, '-')
	END) VIRTUAL;

-- The runs of an edge, newest first (v_run_symptoms, the report's evidence,
-- and analysts' "what happened on 4.14 lately"); with the result, it covers
-- the counts of an edge's finished runs.
CREATE INDEX runs_edge ON runs (edge, started_at, build_id, result);

-- What the analysis reads of every run, so that it scans these narrow indexes
-- instead of the table's wide rows: runs_analysis in the order of its
-- grouping by job and edge; runs_key by the run's key, for the runs' symptoms
-- and tests, which are stored in the same order (SQLite reads a generated
-- column from an index only when the index holds it, hence edge).
CREATE INDEX runs_analysis ON runs (job, release, from_release, upgrade, result, started_at);
CREATE INDEX runs_key ON runs (job, build_id, result, started_at, release, from_release, upgrade, edge);

-- The evidence of one symptom, with the run's key, without a table lookup.
CREATE INDEX run_symptoms_symptom_run ON run_symptoms (symptom_id, job, build_id);
DROP INDEX run_symptoms_symptom;

-- One row per active symptom, scope key and comparison.
--   release  the sample is an edge (or variant) X.Y->X.(Y+1), the basis the
--            same-shaped edge one release earlier X.(Y-1)->X.Y; all runs.
--   window   the sample is the last days (7) before "now", the basis the days
--            (30) before the sample; by start time.
-- sample_rate and basis_rate are NULL when there are no runs. p_value is the
-- one-sided Fisher exact p in the direction the sample moved (a higher sample
-- rate: the p of a regression; a lower one: of an improvement), NULL when
-- either side has no runs.
CREATE TABLE symptom_verdicts (
	symptom_id   TEXT NOT NULL REFERENCES symptoms (id),
	scope        TEXT NOT NULL CHECK (scope IN ('job', 'edge', 'variant')),
	scope_key    TEXT NOT NULL,
	comparison   TEXT NOT NULL CHECK (comparison IN ('release', 'window')),
	sample_label TEXT NOT NULL,
	basis_label  TEXT NOT NULL,
	sample_runs  INTEGER NOT NULL CHECK (sample_runs >= 0),
	sample_hits  INTEGER NOT NULL CHECK (sample_hits BETWEEN 0 AND sample_runs),
	basis_runs   INTEGER NOT NULL CHECK (basis_runs >= 0),
	basis_hits   INTEGER NOT NULL CHECK (basis_hits BETWEEN 0 AND basis_runs),
	sample_rate  REAL CHECK (sample_rate BETWEEN 0 AND 1),
	basis_rate   REAL CHECK (basis_rate BETWEEN 0 AND 1),
	p_value      REAL CHECK (p_value BETWEEN 0 AND 1),
	verdict      TEXT NOT NULL CHECK (verdict IN ('insufficient', 'none', 'regression', 'improved', 'persistent', 'new', 'flake')),
	computed_at  TEXT NOT NULL,
	PRIMARY KEY (symptom_id, scope, scope_key, comparison),
	-- A job has no release of its own to compare with.
	CHECK (comparison = 'window' OR scope <> 'job')
) STRICT;

CREATE INDEX symptom_verdicts_verdict ON symptom_verdicts (verdict, computed_at);
CREATE INDEX symptom_verdicts_scope ON symptom_verdicts (scope, scope_key);

-- One row per test and scope key, over all finished runs: runs where the test
-- ran (passed, failed or flaked; skips do not count), how many of them it
-- failed, and how many it flaked (failed and passed in the same run).
CREATE TABLE test_flake_rates (
	scope       TEXT NOT NULL CHECK (scope IN ('job', 'edge', 'variant')),
	scope_key   TEXT NOT NULL,
	suite       TEXT NOT NULL,
	name        TEXT NOT NULL,
	runs        INTEGER NOT NULL CHECK (runs > 0),
	failures    INTEGER NOT NULL CHECK (failures BETWEEN 0 AND runs),
	flakes      INTEGER NOT NULL CHECK (flakes BETWEEN 0 AND runs - failures),
	flake_rate  REAL NOT NULL CHECK (flake_rate BETWEEN 0 AND 1),
	computed_at TEXT NOT NULL,
	PRIMARY KEY (scope, scope_key, suite, name)
) STRICT;

CREATE INDEX test_flake_rates_name ON test_flake_rates (name, scope);

-- Every finished run once per scope it counts in. Filtering on scope (a
-- constant in each arm) drops the other arms; on scope_key of the edge scope,
-- it uses runs_edge.
CREATE VIEW v_scoped_runs AS
SELECT 'job' AS scope, r.job AS scope_key, r.job, r.build_id, r.result, r.started_at
FROM runs r
WHERE +r.result IN ('success', 'failure', 'error')
UNION ALL
SELECT 'edge', r.edge, r.job, r.build_id, r.result, r.started_at
FROM runs r
WHERE +r.result IN ('success', 'failure', 'error') AND r.edge IS NOT NULL
UNION ALL
SELECT 'variant', r.edge || ' ' || coalesce(j.platform, '-') || ' ' || coalesce(j.network, '-') || ' ' || coalesce(j.arch, '-'),
	r.job, r.build_id, r.result, r.started_at
FROM runs r JOIN jobs j ON j.name = r.job
WHERE +r.result IN ('success', 'failure', 'error') AND r.edge IS NOT NULL;

-- Each active symptom's rate in every scope key over all finished runs, zero
-- included: runs_with of finished_runs show it, failed_with of them failed and
-- passed_with passed anyway; share_of_failures is failed_with / failed_runs.
-- One arm per scope, each grouping the tables directly, so that SQLite pushes
-- an analyst's WHERE on symptom, scope and scope_key into the arms: a scope
-- drops the other arms, a job or an edge is looked up by index (runs_key,
-- runs_edge). The result is written +r.result, so that SQLite does not pick
-- the index on result, which is no use for three of five values.
CREATE VIEW v_symptom_rates AS
SELECT s.id AS symptom, 'job' AS scope, t.scope_key, t.finished_runs,
	coalesce(h.runs_with, 0) AS runs_with, coalesce(h.failed_with, 0) AS failed_with,
	coalesce(h.runs_with - h.failed_with, 0) AS passed_with, coalesce(h.runs_with, 0) * 1.0 / t.finished_runs AS rate,
	t.failed_runs, CASE WHEN t.failed_runs > 0 THEN coalesce(h.failed_with, 0) * 1.0 / t.failed_runs END AS share_of_failures
FROM (
	SELECT r.job AS scope_key, count(*) AS finished_runs, sum(r.result <> 'success') AS failed_runs
	FROM runs r
	WHERE +r.result IN ('success', 'failure', 'error')
	GROUP BY 1
) t
JOIN symptoms s ON s.active = 1
LEFT JOIN (
	SELECT rs.symptom_id, r.job AS scope_key, count(*) AS runs_with, sum(r.result <> 'success') AS failed_with
	FROM run_symptoms rs JOIN runs r INDEXED BY runs_key ON r.job = rs.job AND r.build_id = rs.build_id
	WHERE +r.result IN ('success', 'failure', 'error')
	GROUP BY 1, 2
) h ON h.symptom_id = s.id AND h.scope_key = t.scope_key
UNION ALL
SELECT s.id AS symptom, 'edge' AS scope, t.scope_key, t.finished_runs,
	coalesce(h.runs_with, 0) AS runs_with, coalesce(h.failed_with, 0) AS failed_with,
	coalesce(h.runs_with - h.failed_with, 0) AS passed_with, coalesce(h.runs_with, 0) * 1.0 / t.finished_runs AS rate,
	t.failed_runs, CASE WHEN t.failed_runs > 0 THEN coalesce(h.failed_with, 0) * 1.0 / t.failed_runs END AS share_of_failures
FROM (
	SELECT r.edge AS scope_key, count(*) AS finished_runs, sum(r.result <> 'success') AS failed_runs
	FROM runs r
	WHERE +r.result IN ('success', 'failure', 'error') AND r.edge IS NOT NULL
	GROUP BY 1
) t
JOIN symptoms s ON s.active = 1
LEFT JOIN (
	SELECT rs.symptom_id, r.edge AS scope_key, count(*) AS runs_with, sum(r.result <> 'success') AS failed_with
	FROM run_symptoms rs JOIN runs r INDEXED BY runs_key ON r.job = rs.job AND r.build_id = rs.build_id
	WHERE +r.result IN ('success', 'failure', 'error') AND r.edge IS NOT NULL
	GROUP BY 1, 2
) h ON h.symptom_id = s.id AND h.scope_key = t.scope_key
UNION ALL
SELECT s.id AS symptom, 'variant' AS scope, t.scope_key, t.finished_runs,
	coalesce(h.runs_with, 0) AS runs_with, coalesce(h.failed_with, 0) AS failed_with,
	coalesce(h.runs_with - h.failed_with, 0) AS passed_with, coalesce(h.runs_with, 0) * 1.0 / t.finished_runs AS rate,
	t.failed_runs, CASE WHEN t.failed_runs > 0 THEN coalesce(h.failed_with, 0) * 1.0 / t.failed_runs END AS share_of_failures
FROM (
	SELECT r.edge || ' ' || coalesce(j.platform, '-') || ' ' || coalesce(j.network, '-') || ' ' || coalesce(j.arch, '-') AS scope_key, count(*) AS finished_runs, sum(r.result <> 'success') AS failed_runs
	FROM runs r JOIN jobs j ON j.name = r.job
	WHERE +r.result IN ('success', 'failure', 'error') AND r.edge IS NOT NULL
	GROUP BY 1
) t
JOIN symptoms s ON s.active = 1
LEFT JOIN (
	SELECT rs.symptom_id, r.edge || ' ' || coalesce(j.platform, '-') || ' ' || coalesce(j.network, '-') || ' ' || coalesce(j.arch, '-') AS scope_key, count(*) AS runs_with, sum(r.result <> 'success') AS failed_with
	FROM run_symptoms rs JOIN runs r INDEXED BY runs_key ON r.job = rs.job AND r.build_id = rs.build_id JOIN jobs j ON j.name = r.job
	WHERE +r.result IN ('success', 'failure', 'error') AND r.edge IS NOT NULL
	GROUP BY 1, 2
) h ON h.symptom_id = s.id AND h.scope_key = t.scope_key;

-- The verdicts to act on: regressions, then new symptoms, newest analysis
-- first, with what a release engineer needs to file or find the bug.
CREATE VIEW v_regressions AS
SELECT v.symptom_id, s.title, s.bug, v.scope, v.scope_key, v.comparison, v.verdict,
	v.sample_label, v.sample_runs, v.sample_hits, v.sample_rate,
	v.basis_label, v.basis_runs, v.basis_hits, v.basis_rate,
	round(100 * (v.sample_rate - coalesce(v.basis_rate, 0)), 1) AS delta_points,
	v.p_value, v.computed_at
FROM symptom_verdicts v JOIN symptoms s ON s.id = v.symptom_id
WHERE v.verdict IN ('regression', 'new')
ORDER BY v.computed_at DESC, v.verdict = 'new', v.p_value, v.symptom_id, v.scope, v.scope_key, v.comparison;

-- Every symptom a run shows, with the run's link and the first evidence: what
-- to open to see it for yourself.
CREATE VIEW v_run_symptoms AS
SELECT r.job, r.build_id, r.url, r.result, r.started_at, r.edge, j.platform, j.network,
	rs.symptom_id, rs.hits, rs.file, rs.line, rs.excerpt, rs.at, j.arch
FROM run_symptoms rs
JOIN runs r ON r.job = rs.job AND r.build_id = rs.build_id
JOIN jobs j ON j.name = r.job;
