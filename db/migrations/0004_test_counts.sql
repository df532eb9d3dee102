-- The analysis counts every test of every finished run, by job, edge and test:
-- grouping the tests table for that sorts all of its rows (ten million for a
-- million runs), which took more than a minute. test_counts holds those
-- counts, kept exact by the writer: a batch of runs subtracts what the
-- batch's runs counted before it replaces them and adds what they count
-- after (Write and Merge), so that a run rewritten (pending then finished,
-- refetched, merged from a shard) is counted once, on its current edge.
--
-- One row per job, run edge (release, from_release and upgrade of runs, ''
-- when NULL) and test: runs where the test passed, failed or flaked (skips
-- do not count), of the finished runs only (success, failure, error), and
-- how many of those it failed and flaked. A row whose runs fall to zero is
-- deleted. WITHOUT ROWID: the key is what it is read and updated by.
CREATE TABLE test_counts (
	job          TEXT NOT NULL,
	release      TEXT NOT NULL,
	from_release TEXT NOT NULL,
	upgrade      TEXT NOT NULL,
	suite        TEXT NOT NULL,
	name         TEXT NOT NULL,
	runs         INTEGER NOT NULL CHECK (runs >= 0),
	failures     INTEGER NOT NULL CHECK (failures BETWEEN 0 AND runs),
	flakes       INTEGER NOT NULL CHECK (flakes BETWEEN 0 AND runs - failures),
	PRIMARY KEY (job, release, from_release, upgrade, suite, name)
) STRICT, WITHOUT ROWID;

-- The counts of the runs stored so far: once, on the first open by a
-- version with this table.
INSERT INTO test_counts (job, release, from_release, upgrade, suite, name, runs, failures, flakes)
SELECT r.job, coalesce(r.release, ''), coalesce(r.from_release, ''), coalesce(r.upgrade, ''), t.suite, t.name,
	count(*), count(CASE WHEN t.status = 'fail' THEN 1 END), count(CASE WHEN t.status = 'flake' THEN 1 END)
FROM runs r INDEXED BY runs_key
CROSS JOIN tests t ON t.job = r.job AND t.build_id = r.build_id
WHERE t.status IN ('pass', 'fail', 'flake') AND r.result IN ('success', 'failure', 'error')
GROUP BY 1, 2, 3, 4, 5, 6;

-- v_symptom_rates counted the variants by reading every run's row of the
-- table (a variant names the run's edge, a virtual column, which SQLite never
-- reads from an index) and sorting them. Its variant arm now groups the runs
-- by job and run edge in the order of runs_analysis, which covers that, and
-- sums those groups into variants; the edge is computed as runs.edge is.
-- The other arms and the columns are unchanged.
DROP VIEW v_symptom_rates;
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
	SELECT CASE
			WHEN g.from_release IS NULL OR g.from_release = g.release THEN g.release || ' ' || coalesce(g.upgrade, '-')
			ELSE g.from_release || '->' || g.release || ' ' || coalesce(g.upgrade, '-')
		END || ' ' || coalesce(j.platform, '-') || ' ' || coalesce(j.network, '-') || ' ' || coalesce(j.arch, '-') AS scope_key,
		sum(g.finished_runs) AS finished_runs, sum(g.failed_runs) AS failed_runs
	FROM (
		SELECT r.job, r.release, r.from_release, r.upgrade, count(*) AS finished_runs, sum(r.result <> 'success') AS failed_runs
		FROM runs r INDEXED BY runs_analysis
		WHERE +r.result IN ('success', 'failure', 'error') AND r.release IS NOT NULL
		GROUP BY r.job, r.release, r.from_release, r.upgrade
	) g JOIN jobs j ON j.name = g.job
	GROUP BY 1
) t
JOIN symptoms s ON s.active = 1
LEFT JOIN (
	SELECT g.symptom_id, CASE
			WHEN g.from_release IS NULL OR g.from_release = g.release THEN g.release || ' ' || coalesce(g.upgrade, '-')
			ELSE g.from_release || '->' || g.release || ' ' || coalesce(g.upgrade, '-')
		END || ' ' || coalesce(j.platform, '-') || ' ' || coalesce(j.network, '-') || ' ' || coalesce(j.arch, '-') AS scope_key,
		sum(g.runs_with) AS runs_with, sum(g.failed_with) AS failed_with
	FROM (
		SELECT rs.symptom_id, r.job, r.release, r.from_release, r.upgrade,
			count(*) AS runs_with, sum(r.result <> 'success') AS failed_with
		FROM run_symptoms rs JOIN runs r INDEXED BY runs_key ON r.job = rs.job AND r.build_id = rs.build_id
		WHERE +r.result IN ('success', 'failure', 'error') AND r.release IS NOT NULL
		GROUP BY 1, 2, 3, 4, 5
	) g JOIN jobs j ON j.name = g.job
	GROUP BY 1, 2
) h ON h.symptom_id = s.id AND h.scope_key = t.scope_key;
