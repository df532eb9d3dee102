-- Populations and topology. A rate counts only the runs it is about:
--   * presubmit runs (jobs.type 'presubmit') test a pull request's code: they
--     have no edge and no variant, and form their own scope, 'presubmit',
--     keyed by job; the 'job' scope holds the other jobs;
--   * a run whose upgrade never began (runs.upgrade_started = 0: the install
--     failed, or the cluster version operator never acknowledged the
--     upgrade) is counted apart; NULL (unknown) counts as started;
--   * -upgrade-out-of-change jobs are upgrade 'micro-downgrade', their own
--     edges ("4.16 micro-downgrade").
-- jobs.topology is the job name's (ha, single, compact, two-node-arbiter,
-- two-node-fencing, external), part of the variant key.
--
-- The edge and variant keys are no longer computed in SQL: runs.edge and
-- runs.variant are plain columns that the writer fills from the one
-- definition of the keys (db/keys.go, RunKeys). The Go step of this
-- migration (db/rederive.go) derives every stored job's variants from its
-- name again, with the same code a crawl uses, and fills jobs.topology,
-- runs.edge, runs.variant and runs.upgrade_started for the runs stored so
-- far; SQL cannot run that code.

ALTER TABLE jobs ADD COLUMN topology TEXT;

ALTER TABLE runs ADD COLUMN upgrade_started INTEGER CHECK (upgrade_started IN (0, 1));

-- runs.edge was a virtual column computed from the run's columns; it could
-- not leave out presubmits, whose job type is in jobs. Everything that names
-- it goes first.
DROP VIEW v_scoped_runs;
DROP VIEW v_symptom_rates;
DROP VIEW v_run_symptoms;
DROP INDEX runs_edge;
DROP INDEX runs_key;
DROP INDEX runs_analysis;
ALTER TABLE runs DROP COLUMN edge;
ALTER TABLE runs ADD COLUMN edge TEXT;
ALTER TABLE runs ADD COLUMN variant TEXT;

CREATE INDEX runs_edge ON runs (edge, started_at, build_id, result, upgrade_started);
CREATE INDEX runs_analysis ON runs (job, release, from_release, upgrade, upgrade_started, result, started_at);
CREATE INDEX runs_key ON runs (job, build_id, result, started_at, release, from_release, upgrade, upgrade_started, edge, variant);

-- The analysis gains the presubmit scope, the date span of each side (the
-- start of its first and last counted run) and how many finished runs each
-- side left out because their upgrade never began. Recreated with the rows
-- it held; analyze fills the new columns next time.
CREATE TABLE symptom_verdicts_new (
	symptom_id      TEXT NOT NULL REFERENCES symptoms (id),
	scope           TEXT NOT NULL CHECK (scope IN ('job', 'edge', 'variant', 'presubmit')),
	scope_key       TEXT NOT NULL,
	comparison      TEXT NOT NULL CHECK (comparison IN ('release', 'window')),
	sample_label    TEXT NOT NULL,
	basis_label     TEXT NOT NULL,
	sample_runs     INTEGER NOT NULL CHECK (sample_runs >= 0),
	sample_hits     INTEGER NOT NULL CHECK (sample_hits BETWEEN 0 AND sample_runs),
	basis_runs      INTEGER NOT NULL CHECK (basis_runs >= 0),
	basis_hits      INTEGER NOT NULL CHECK (basis_hits BETWEEN 0 AND basis_runs),
	sample_rate     REAL CHECK (sample_rate BETWEEN 0 AND 1),
	basis_rate      REAL CHECK (basis_rate BETWEEN 0 AND 1),
	p_value         REAL CHECK (p_value BETWEEN 0 AND 1),
	verdict         TEXT NOT NULL CHECK (verdict IN ('insufficient', 'none', 'regression', 'improved', 'persistent', 'new', 'flake')),
	computed_at     TEXT NOT NULL,
	sample_from     TEXT,
	sample_to       TEXT,
	basis_from      TEXT,
	basis_to        TEXT,
	sample_left_out INTEGER NOT NULL DEFAULT 0 CHECK (sample_left_out >= 0),
	basis_left_out  INTEGER NOT NULL DEFAULT 0 CHECK (basis_left_out >= 0),
	PRIMARY KEY (symptom_id, scope, scope_key, comparison),
	CHECK (comparison = 'window' OR scope IN ('edge', 'variant'))
) STRICT;
INSERT INTO symptom_verdicts_new (symptom_id, scope, scope_key, comparison, sample_label, basis_label,
	sample_runs, sample_hits, basis_runs, basis_hits, sample_rate, basis_rate, p_value, verdict, computed_at)
SELECT symptom_id, scope, scope_key, comparison, sample_label, basis_label,
	sample_runs, sample_hits, basis_runs, basis_hits, sample_rate, basis_rate, p_value, verdict, computed_at
FROM symptom_verdicts;
DROP VIEW v_regressions;
DROP TABLE symptom_verdicts;
ALTER TABLE symptom_verdicts_new RENAME TO symptom_verdicts;
CREATE INDEX symptom_verdicts_verdict ON symptom_verdicts (verdict, computed_at);
CREATE INDEX symptom_verdicts_scope ON symptom_verdicts (scope, scope_key);

CREATE TABLE test_flake_rates_new (
	scope       TEXT NOT NULL CHECK (scope IN ('job', 'edge', 'variant', 'presubmit')),
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
INSERT INTO test_flake_rates_new SELECT * FROM test_flake_rates;
DROP TABLE test_flake_rates;
ALTER TABLE test_flake_rates_new RENAME TO test_flake_rates;
CREATE INDEX test_flake_rates_name ON test_flake_rates (name, scope);

-- The verdicts to act on, as before, with the date spans and the runs left
-- out.
CREATE VIEW v_regressions AS
SELECT v.symptom_id, s.title, s.bug, v.scope, v.scope_key, v.comparison, v.verdict,
	v.sample_label, v.sample_runs, v.sample_hits, v.sample_rate,
	v.basis_label, v.basis_runs, v.basis_hits, v.basis_rate,
	round(100 * (v.sample_rate - coalesce(v.basis_rate, 0)), 1) AS delta_points,
	v.p_value, v.computed_at, v.sample_from, v.sample_to, v.basis_from, v.basis_to,
	v.sample_left_out, v.basis_left_out
FROM symptom_verdicts v JOIN symptoms s ON s.id = v.symptom_id
WHERE v.verdict IN ('regression', 'new')
ORDER BY v.computed_at DESC, v.verdict = 'new', v.p_value, v.symptom_id, v.scope, v.scope_key, v.comparison;

-- Every counted run once per scope it counts in: finished (success, failure,
-- error), its upgrade not known to have never begun. Presubmits are only in
-- 'presubmit'; the others in 'job', and in 'edge' and 'variant' when their
-- release is known.
CREATE VIEW v_scoped_runs AS
SELECT CASE WHEN j.type = 'presubmit' THEN 'presubmit' ELSE 'job' END AS scope, r.job AS scope_key,
	r.job, r.build_id, r.result, r.started_at
FROM runs r JOIN jobs j ON j.name = r.job
WHERE +r.result IN ('success', 'failure', 'error') AND r.upgrade_started IS NOT 0
UNION ALL
SELECT 'edge', r.edge, r.job, r.build_id, r.result, r.started_at
FROM runs r
WHERE +r.result IN ('success', 'failure', 'error') AND r.upgrade_started IS NOT 0 AND r.edge IS NOT NULL
UNION ALL
SELECT 'variant', r.variant, r.job, r.build_id, r.result, r.started_at
FROM runs r
WHERE +r.result IN ('success', 'failure', 'error') AND r.upgrade_started IS NOT 0 AND r.variant IS NOT NULL;

-- Each active symptom's rate in every scope key over the counted runs, zero
-- included: runs_with of finished_runs show it, failed_with of them failed
-- and passed_with passed anyway; share_of_failures is failed_with /
-- failed_runs; left_out is how many finished runs of the key are not counted
-- because their upgrade never began (rate is NULL when that is all of them).
-- One arm per scope, each grouping the tables directly, so that SQLite
-- pushes an analyst's WHERE on symptom, scope and scope_key into the arms.
-- The key of an arm is the stored column (runs.edge, runs.variant), filled
-- from the one definition of the keys.
CREATE VIEW v_symptom_rates AS
SELECT y.id AS symptom, 'job' AS scope, t.scope_key, t.finished_runs,
	coalesce(h.runs_with, 0) AS runs_with, coalesce(h.failed_with, 0) AS failed_with,
	coalesce(h.runs_with - h.failed_with, 0) AS passed_with,
	CASE WHEN t.finished_runs > 0 THEN coalesce(h.runs_with, 0) * 1.0 / t.finished_runs END AS rate,
	t.failed_runs, CASE WHEN t.failed_runs > 0 THEN coalesce(h.failed_with, 0) * 1.0 / t.failed_runs END AS share_of_failures,
	t.left_out
FROM (
	SELECT r.job AS scope_key, sum(r.upgrade_started IS NOT 0) AS finished_runs,
		sum(r.upgrade_started IS NOT 0 AND r.result <> 'success') AS failed_runs, sum(r.upgrade_started IS 0) AS left_out
	FROM runs r INDEXED BY runs_analysis
	WHERE +r.result IN ('success', 'failure', 'error') AND r.job IS NOT NULL
	GROUP BY 1
) t
JOIN jobs j ON j.name = t.scope_key AND j.type IS NOT 'presubmit'
JOIN symptoms y ON y.active = 1
LEFT JOIN (
	SELECT rs.symptom_id, r.job AS scope_key, count(*) AS runs_with, sum(r.result <> 'success') AS failed_with
	FROM run_symptoms rs JOIN runs r INDEXED BY runs_key ON r.job = rs.job AND r.build_id = rs.build_id
	WHERE +r.result IN ('success', 'failure', 'error') AND r.upgrade_started IS NOT 0 AND r.job IS NOT NULL
	GROUP BY 1, 2
) h ON h.symptom_id = y.id AND h.scope_key = t.scope_key
UNION ALL
SELECT y.id AS symptom, 'presubmit' AS scope, t.scope_key, t.finished_runs,
	coalesce(h.runs_with, 0) AS runs_with, coalesce(h.failed_with, 0) AS failed_with,
	coalesce(h.runs_with - h.failed_with, 0) AS passed_with,
	CASE WHEN t.finished_runs > 0 THEN coalesce(h.runs_with, 0) * 1.0 / t.finished_runs END AS rate,
	t.failed_runs, CASE WHEN t.failed_runs > 0 THEN coalesce(h.failed_with, 0) * 1.0 / t.failed_runs END AS share_of_failures,
	t.left_out
FROM (
	SELECT r.job AS scope_key, sum(r.upgrade_started IS NOT 0) AS finished_runs,
		sum(r.upgrade_started IS NOT 0 AND r.result <> 'success') AS failed_runs, sum(r.upgrade_started IS 0) AS left_out
	FROM runs r INDEXED BY runs_analysis
	WHERE +r.result IN ('success', 'failure', 'error') AND r.job IS NOT NULL
	GROUP BY 1
) t
JOIN jobs j ON j.name = t.scope_key AND j.type = 'presubmit'
JOIN symptoms y ON y.active = 1
LEFT JOIN (
	SELECT rs.symptom_id, r.job AS scope_key, count(*) AS runs_with, sum(r.result <> 'success') AS failed_with
	FROM run_symptoms rs JOIN runs r INDEXED BY runs_key ON r.job = rs.job AND r.build_id = rs.build_id
	WHERE +r.result IN ('success', 'failure', 'error') AND r.upgrade_started IS NOT 0 AND r.job IS NOT NULL
	GROUP BY 1, 2
) h ON h.symptom_id = y.id AND h.scope_key = t.scope_key
UNION ALL
SELECT y.id AS symptom, 'edge' AS scope, t.scope_key, t.finished_runs,
	coalesce(h.runs_with, 0) AS runs_with, coalesce(h.failed_with, 0) AS failed_with,
	coalesce(h.runs_with - h.failed_with, 0) AS passed_with,
	CASE WHEN t.finished_runs > 0 THEN coalesce(h.runs_with, 0) * 1.0 / t.finished_runs END AS rate,
	t.failed_runs, CASE WHEN t.failed_runs > 0 THEN coalesce(h.failed_with, 0) * 1.0 / t.failed_runs END AS share_of_failures,
	t.left_out
FROM (
	SELECT r.edge AS scope_key, sum(r.upgrade_started IS NOT 0) AS finished_runs,
		sum(r.upgrade_started IS NOT 0 AND r.result <> 'success') AS failed_runs, sum(r.upgrade_started IS 0) AS left_out
	FROM runs r INDEXED BY runs_edge
	WHERE +r.result IN ('success', 'failure', 'error') AND r.edge IS NOT NULL
	GROUP BY 1
) t
JOIN symptoms y ON y.active = 1
LEFT JOIN (
	SELECT rs.symptom_id, r.edge AS scope_key, count(*) AS runs_with, sum(r.result <> 'success') AS failed_with
	FROM run_symptoms rs JOIN runs r INDEXED BY runs_key ON r.job = rs.job AND r.build_id = rs.build_id
	WHERE +r.result IN ('success', 'failure', 'error') AND r.upgrade_started IS NOT 0 AND r.edge IS NOT NULL
	GROUP BY 1, 2
) h ON h.symptom_id = y.id AND h.scope_key = t.scope_key
UNION ALL
SELECT y.id AS symptom, 'variant' AS scope, t.scope_key, t.finished_runs,
	coalesce(h.runs_with, 0) AS runs_with, coalesce(h.failed_with, 0) AS failed_with,
	coalesce(h.runs_with - h.failed_with, 0) AS passed_with,
	CASE WHEN t.finished_runs > 0 THEN coalesce(h.runs_with, 0) * 1.0 / t.finished_runs END AS rate,
	t.failed_runs, CASE WHEN t.failed_runs > 0 THEN coalesce(h.failed_with, 0) * 1.0 / t.failed_runs END AS share_of_failures,
	t.left_out
FROM (
	SELECT r.variant AS scope_key, sum(r.upgrade_started IS NOT 0) AS finished_runs,
		sum(r.upgrade_started IS NOT 0 AND r.result <> 'success') AS failed_runs, sum(r.upgrade_started IS 0) AS left_out
	FROM runs r INDEXED BY runs_key
	WHERE +r.result IN ('success', 'failure', 'error') AND r.variant IS NOT NULL
	GROUP BY 1
) t
JOIN symptoms y ON y.active = 1
LEFT JOIN (
	SELECT rs.symptom_id, r.variant AS scope_key, count(*) AS runs_with, sum(r.result <> 'success') AS failed_with
	FROM run_symptoms rs JOIN runs r INDEXED BY runs_key ON r.job = rs.job AND r.build_id = rs.build_id
	WHERE +r.result IN ('success', 'failure', 'error') AND r.upgrade_started IS NOT 0 AND r.variant IS NOT NULL
	GROUP BY 1, 2
) h ON h.symptom_id = y.id AND h.scope_key = t.scope_key;

-- Every symptom a run shows, with the run's link and the first evidence;
-- with its variant, topology and whether its upgrade began.
CREATE VIEW v_run_symptoms AS
SELECT r.job, r.build_id, r.url, r.result, r.started_at, r.edge, j.platform, j.network,
	rs.symptom_id, rs.hits, rs.file, rs.line, rs.excerpt, rs.at, j.arch, r.variant, j.topology,
	r.upgrade_started, j.type
FROM run_symptoms rs
JOIN runs r ON r.job = rs.job AND r.build_id = rs.build_id
JOIN jobs j ON j.name = r.job;
