-- version 23
-- The schema of every migration up to 0023_infrastructure, written by `make schema`; do not edit.

CREATE TABLE jobs (
	name         TEXT PRIMARY KEY,
	type         TEXT,
	release      TEXT,
	from_release TEXT,
	upgrade      TEXT,
	platform     TEXT,
	network      TEXT,
	arch         TEXT
, topology TEXT, network_stack TEXT) STRICT;

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
	crawled_at    TEXT NOT NULL, upgrade_started INTEGER CHECK (upgrade_started IN (0, 1)), edge TEXT, variant TEXT, fetch_attempts INTEGER NOT NULL DEFAULT 0, given_up_at TEXT, rule_set INTEGER, overall_result TEXT CHECK (overall_result IN ('S', 'F', 'U', 'I', 'N', 'n', 'A', 'R')), cluster_networks TEXT, service_networks TEXT,
	PRIMARY KEY (job, build_id)
) STRICT;

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

CREATE TABLE symptoms (
	id          TEXT PRIMARY KEY,
	title       TEXT NOT NULL,
	description TEXT,
	bug         TEXT,
	source      TEXT NOT NULL
, active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)), rule_hash TEXT, topology TEXT, not_topology TEXT) STRICT;

CREATE TABLE run_symptoms (
	job        TEXT NOT NULL,
	build_id   INTEGER NOT NULL,
	symptom_id TEXT NOT NULL REFERENCES symptoms (id),
	hits       INTEGER NOT NULL,
	file       TEXT,
	line       INTEGER,
	excerpt    TEXT,
	at         TEXT, last_at TEXT, rule_hash TEXT, run_started_at TEXT, run_result TEXT, run_in_rates INTEGER, run_release TEXT, run_from_release TEXT, run_upgrade TEXT,
	PRIMARY KEY (job, build_id, symptom_id),
	FOREIGN KEY (job, build_id) REFERENCES runs (job, build_id) ON DELETE CASCADE
) STRICT;

CREATE TABLE run_errors (
	job      TEXT NOT NULL,
	build_id INTEGER NOT NULL,
	object   TEXT NOT NULL,
	kind     TEXT NOT NULL CHECK (kind IN ('read', 'parse', 'size')),
	message  TEXT NOT NULL,
	FOREIGN KEY (job, build_id) REFERENCES runs (job, build_id) ON DELETE CASCADE
) STRICT;

CREATE TABLE crawl_cursors (
	bucket     TEXT NOT NULL,
	job        TEXT NOT NULL,
	build_id   INTEGER NOT NULL,
	started_at TEXT,
	updated_at TEXT NOT NULL,
	PRIMARY KEY (bucket, job)
) STRICT;

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

CREATE TABLE "symptom_verdicts" (
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
	basis_left_out  INTEGER NOT NULL DEFAULT 0 CHECK (basis_left_out >= 0), sample_unclassified INTEGER NOT NULL DEFAULT 0 CHECK (sample_unclassified >= 0), basis_unclassified INTEGER NOT NULL DEFAULT 0 CHECK (basis_unclassified >= 0),
	PRIMARY KEY (symptom_id, scope, scope_key, comparison),
	CHECK (comparison = 'window' OR scope IN ('edge', 'variant'))
) STRICT;

CREATE TABLE "test_flake_rates" (
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

CREATE TABLE run_disruptions (
	job          TEXT NOT NULL,
	build_id     INTEGER NOT NULL,
	file         TEXT NOT NULL,
	backend      TEXT NOT NULL,
	backend_name TEXT,
	connection   TEXT CHECK (connection IN ('new', 'reused')),
	disrupted_s  REAL CHECK (disrupted_s >= 0),
	source       TEXT NOT NULL CHECK (source IN ('backend-disruption', 'events')), run_started_at TEXT, run_result TEXT, run_in_rates INTEGER, run_release TEXT, run_from_release TEXT, run_upgrade TEXT,
	PRIMARY KEY (job, build_id, file, backend),
	FOREIGN KEY (job, build_id) REFERENCES runs (job, build_id) ON DELETE CASCADE
) STRICT;

CREATE TABLE analyses (
	id          INTEGER PRIMARY KEY,
	computed_at TEXT NOT NULL,
	as_of       TEXT NOT NULL
) STRICT;

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

CREATE TABLE regression_changes (
	analysis_id INTEGER NOT NULL REFERENCES analyses (id),
	symptom_id  TEXT NOT NULL,
	scope       TEXT NOT NULL,
	scope_key   TEXT NOT NULL,
	change      TEXT NOT NULL CHECK (change IN ('opened', 'reopened', 'closed')),
	at          TEXT NOT NULL,
	PRIMARY KEY (analysis_id, symptom_id, scope, scope_key)
) STRICT;

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

CREATE TABLE run_disruption_totals (
	job                 TEXT NOT NULL,
	build_id            INTEGER NOT NULL,
	backend             TEXT NOT NULL,
	disrupted_s         REAL,
	files               INTEGER NOT NULL,
	run_started_at      TEXT,
	run_result          TEXT,
	run_in_rates INTEGER,
	run_release         TEXT,
	run_from_release    TEXT,
	run_upgrade         TEXT,
	PRIMARY KEY (job, build_id, backend)
) STRICT;

CREATE TABLE disruption_days (
	day          TEXT NOT NULL,
	job          TEXT NOT NULL,
	release      TEXT NOT NULL,
	from_release TEXT NOT NULL,
	upgrade      TEXT NOT NULL,
	backend      TEXT NOT NULL,
	disrupted_s  REAL NOT NULL,
	runs         INTEGER NOT NULL CHECK (runs > 0),
	first        TEXT NOT NULL,
	last         TEXT NOT NULL,
	PRIMARY KEY (day, job, release, from_release, upgrade, backend, disrupted_s)
) STRICT, WITHOUT ROWID;

CREATE TABLE rule_sets (
	id     INTEGER PRIMARY KEY,
	digest TEXT NOT NULL UNIQUE
) STRICT;

CREATE TABLE rule_set_rules (
	rule_set   INTEGER NOT NULL REFERENCES rule_sets (id) ON DELETE CASCADE,
	symptom_id TEXT NOT NULL,
	rule_hash  TEXT,
	PRIMARY KEY (rule_set, symptom_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX runs_started_at ON runs (started_at);

CREATE INDEX runs_result ON runs (result);

CREATE INDEX runs_release ON runs (release, from_release);

CREATE INDEX runs_bucket_job ON runs (bucket, job, build_id);

CREATE INDEX tests_name_status ON tests (name, status);

CREATE INDEX run_errors_run ON run_errors (job, build_id);

CREATE INDEX run_symptoms_run ON run_symptoms (job, build_id);

CREATE INDEX run_symptoms_symptom_run ON run_symptoms (symptom_id, job, build_id);

CREATE INDEX runs_edge ON runs (edge, started_at, build_id, result, upgrade_started);

CREATE INDEX runs_key ON runs (job, build_id, result, started_at, release, from_release, upgrade, upgrade_started, edge, variant);

CREATE INDEX symptom_verdicts_verdict ON symptom_verdicts (verdict, computed_at);

CREATE INDEX symptom_verdicts_scope ON symptom_verdicts (scope, scope_key);

CREATE INDEX test_flake_rates_name ON test_flake_rates (name, scope);

CREATE INDEX run_disruptions_backend ON run_disruptions (backend, job, build_id, disrupted_s);

CREATE INDEX regressions_status ON regressions (status, opened_at);

CREATE INDEX regression_changes_at ON regression_changes (at);

CREATE INDEX runs_partial ON runs (url, from_version, to_version) WHERE upgrade_state = 'Partial';

CREATE INDEX runs_not_started ON runs (job, build_id, result, url) WHERE upgrade_started = 0;

CREATE INDEX run_disruptions_window ON run_disruptions (run_started_at, run_result, run_in_rates,
	job, build_id, backend, disrupted_s, run_release, run_from_release, run_upgrade);

CREATE INDEX run_disruption_totals_days ON run_disruption_totals (substr(run_started_at, 1, 10), job, run_release, run_from_release,
	run_upgrade, backend, disrupted_s, run_result, run_in_rates, run_started_at);

CREATE INDEX run_symptoms_days ON run_symptoms (symptom_id, substr(run_started_at, 1, 10), job, run_release, run_from_release, run_upgrade,
	run_result, run_in_rates, run_started_at, build_id, rule_hash);

CREATE INDEX runs_analysis ON runs (job, release, from_release, upgrade, rule_set, upgrade_started, overall_result, result, started_at);

CREATE INDEX runs_days ON runs (substr(started_at, 1, 10), job, release, from_release, upgrade, rule_set, from_version,
	result, upgrade_started, overall_result, started_at, edge);

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

CREATE VIEW v_run_symptoms AS
SELECT r.job, r.build_id, r.url, r.result, r.started_at, r.edge, j.platform, j.network,
	rs.symptom_id, rs.hits, rs.file, rs.line, rs.excerpt, rs.at, j.arch, r.variant, j.topology,
	r.upgrade_started, j.type, rs.last_at,
	round((julianday(rs.last_at) - julianday(rs.at)) * 86400, 3) AS duration_s,
	r.finished_at, r.upgrade_state
FROM run_symptoms rs
JOIN runs r ON r.job = rs.job AND r.build_id = rs.build_id
JOIN jobs j ON j.name = r.job;

CREATE VIEW v_disruption AS
SELECT r.job, r.build_id, r.url, r.result, r.started_at, r.edge, j.platform, j.network, j.arch,
	r.from_version, r.to_version, r.upgrade_state,
	d.backend, d.backend_name, d.connection, count(*) AS files, sum(d.disrupted_s) AS disrupted_s,
	r.variant, j.topology, j.type, r.upgrade_started
FROM run_disruptions d
JOIN runs r ON r.job = d.job AND r.build_id = d.build_id
JOIN jobs j ON j.name = r.job
GROUP BY d.job, d.build_id, d.backend;

CREATE VIEW run_evaluations AS
SELECT r.job, r.build_id, m.symptom_id, m.rule_hash
FROM runs r JOIN rule_set_rules m ON m.rule_set = r.rule_set;

CREATE VIEW v_run_populations AS
SELECT symptom_id, job, build_id, url, result, started_at, edge, variant, type, topology,
	CASE
		WHEN result NOT IN ('success', 'failure', 'error') THEN 'unfinished'
		WHEN job GLOB 'aggregated-*' THEN 'aggregated'
		WHEN overall_result IN ('N', 'n') THEN 'infrastructure'
		WHEN upgrade_started IS 0 THEN 'upgrade not started'
		WHEN NOT in_reach THEN 'rule does not apply'
		WHEN NOT evaluated THEN 'not classified yet'
		ELSE 'counted'
	END AS population,
	in_reach, evaluated, shows, overall_result
FROM (
	SELECT s.id AS symptom_id, r.job, r.build_id, r.url, r.result, r.started_at, r.edge, r.variant, r.upgrade_started,
		j.type, j.topology, r.overall_result,
		coalesce(j.topology, '') = '' OR (instr(',' || coalesce(s.not_topology, '') || ',', ',' || j.topology || ',') = 0
			AND (s.topology IS NULL OR instr(',' || s.topology || ',', ',' || j.topology || ',') > 0)) AS in_reach,
		EXISTS (SELECT 1 FROM rule_set_rules m WHERE m.rule_set = r.rule_set AND m.symptom_id = s.id
			AND m.rule_hash IS s.rule_hash) AS evaluated,
		EXISTS (SELECT 1 FROM run_symptoms rs WHERE rs.job = r.job AND rs.build_id = r.build_id AND rs.symptom_id = s.id
			AND rs.rule_hash IS s.rule_hash) AS shows
	FROM runs r JOIN jobs j ON j.name = r.job JOIN symptoms s ON s.active = 1
);

CREATE VIEW v_counted_runs AS
SELECT symptom_id, job, build_id, url, result, started_at, edge, variant, topology, shows
FROM v_run_populations
WHERE population = 'counted' AND type IS NOT 'presubmit';

CREATE VIEW v_symptom_rates AS
SELECT symptom, scope, scope_key, finished_runs, runs_with, failed_with, runs_with - failed_with AS passed_with,
	CASE WHEN finished_runs > 0 THEN runs_with * 1.0 / finished_runs END AS rate,
	failed_runs, CASE WHEN failed_runs > 0 THEN failed_with * 1.0 / failed_runs END AS share_of_failures,
	left_out, not_classified, infrastructure
FROM (
	SELECT symptom_id AS symptom, CASE WHEN type = 'presubmit' THEN 'presubmit' ELSE 'job' END AS scope, job AS scope_key,
		sum(population = 'counted') AS finished_runs, sum(population = 'counted' AND shows) AS runs_with,
		sum(population = 'counted' AND shows AND result <> 'success') AS failed_with,
		sum(population = 'counted' AND result <> 'success') AS failed_runs,
		sum(population IN ('upgrade not started', 'infrastructure') AND in_reach AND evaluated) AS left_out,
		sum(population = 'not classified yet') AS not_classified,
		sum(population = 'infrastructure' AND in_reach AND evaluated) AS infrastructure,
		sum(population NOT IN ('unfinished', 'aggregated') AND in_reach) AS reached
	FROM v_run_populations GROUP BY symptom_id, job
	UNION ALL
	SELECT symptom_id, 'edge', edge, sum(population = 'counted'), sum(population = 'counted' AND shows),
		sum(population = 'counted' AND shows AND result <> 'success'), sum(population = 'counted' AND result <> 'success'),
		sum(population IN ('upgrade not started', 'infrastructure') AND in_reach AND evaluated), sum(population = 'not classified yet'),
		sum(population = 'infrastructure' AND in_reach AND evaluated),
		sum(population NOT IN ('unfinished', 'aggregated') AND in_reach)
	FROM v_run_populations WHERE type IS NOT 'presubmit' AND edge IS NOT NULL GROUP BY symptom_id, edge
	UNION ALL
	SELECT symptom_id, 'variant', variant, sum(population = 'counted'), sum(population = 'counted' AND shows),
		sum(population = 'counted' AND shows AND result <> 'success'), sum(population = 'counted' AND result <> 'success'),
		sum(population IN ('upgrade not started', 'infrastructure') AND in_reach AND evaluated), sum(population = 'not classified yet'),
		sum(population = 'infrastructure' AND in_reach AND evaluated),
		sum(population NOT IN ('unfinished', 'aggregated') AND in_reach)
	FROM v_run_populations WHERE type IS NOT 'presubmit' AND variant IS NOT NULL GROUP BY symptom_id, variant
) WHERE reached > 0;

CREATE TRIGGER run_disruption_totals_insert AFTER INSERT ON run_disruptions
BEGIN
	DELETE FROM run_disruption_totals WHERE job = NEW.job AND build_id = NEW.build_id AND backend = NEW.backend;
	INSERT INTO run_disruption_totals (job, build_id, backend, disrupted_s, files, run_started_at, run_result, run_in_rates,
		run_release, run_from_release, run_upgrade)
	SELECT d.job, d.build_id, d.backend, sum(d.disrupted_s), count(*), min(d.run_started_at), min(d.run_result), min(d.run_in_rates),
		min(d.run_release), min(d.run_from_release), min(d.run_upgrade)
	FROM run_disruptions d INDEXED BY run_disruptions_backend
	WHERE d.backend = NEW.backend AND d.job = NEW.job AND d.build_id = NEW.build_id
	GROUP BY d.backend, d.job, d.build_id;
END;

CREATE TRIGGER run_disruption_totals_update AFTER UPDATE ON run_disruptions
BEGIN
	DELETE FROM run_disruption_totals WHERE job = OLD.job AND build_id = OLD.build_id AND backend = OLD.backend;
	INSERT INTO run_disruption_totals (job, build_id, backend, disrupted_s, files, run_started_at, run_result, run_in_rates,
		run_release, run_from_release, run_upgrade)
	SELECT d.job, d.build_id, d.backend, sum(d.disrupted_s), count(*), min(d.run_started_at), min(d.run_result), min(d.run_in_rates),
		min(d.run_release), min(d.run_from_release), min(d.run_upgrade)
	FROM run_disruptions d INDEXED BY run_disruptions_backend
	WHERE d.backend = OLD.backend AND d.job = OLD.job AND d.build_id = OLD.build_id
	GROUP BY d.backend, d.job, d.build_id;
	DELETE FROM run_disruption_totals WHERE job = NEW.job AND build_id = NEW.build_id AND backend = NEW.backend;
	INSERT INTO run_disruption_totals (job, build_id, backend, disrupted_s, files, run_started_at, run_result, run_in_rates,
		run_release, run_from_release, run_upgrade)
	SELECT d.job, d.build_id, d.backend, sum(d.disrupted_s), count(*), min(d.run_started_at), min(d.run_result), min(d.run_in_rates),
		min(d.run_release), min(d.run_from_release), min(d.run_upgrade)
	FROM run_disruptions d INDEXED BY run_disruptions_backend
	WHERE d.backend = NEW.backend AND d.job = NEW.job AND d.build_id = NEW.build_id
	GROUP BY d.backend, d.job, d.build_id;
END;

CREATE TRIGGER run_disruption_totals_delete AFTER DELETE ON run_disruptions
BEGIN
	DELETE FROM run_disruption_totals WHERE job = OLD.job AND build_id = OLD.build_id AND backend = OLD.backend;
	INSERT INTO run_disruption_totals (job, build_id, backend, disrupted_s, files, run_started_at, run_result, run_in_rates,
		run_release, run_from_release, run_upgrade)
	SELECT d.job, d.build_id, d.backend, sum(d.disrupted_s), count(*), min(d.run_started_at), min(d.run_result), min(d.run_in_rates),
		min(d.run_release), min(d.run_from_release), min(d.run_upgrade)
	FROM run_disruptions d INDEXED BY run_disruptions_backend
	WHERE d.backend = OLD.backend AND d.job = OLD.job AND d.build_id = OLD.build_id
	GROUP BY d.backend, d.job, d.build_id;
END;

CREATE TRIGGER disruption_days_insert AFTER INSERT ON run_disruption_totals
BEGIN
	INSERT INTO disruption_days (day, job, release, from_release, upgrade, backend, disrupted_s, runs, first, last)
	SELECT substr(NEW.run_started_at, 1, 10), NEW.job, coalesce(NEW.run_release, ''), coalesce(NEW.run_from_release, ''),
		coalesce(NEW.run_upgrade, ''), NEW.backend, NEW.disrupted_s, 1, NEW.run_started_at, NEW.run_started_at
	WHERE NEW.run_started_at IS NOT NULL AND NEW.disrupted_s IS NOT NULL AND NEW.run_result IN ('success', 'failure', 'error') AND NEW.run_in_rates IS NOT 0
	ON CONFLICT (day, job, release, from_release, upgrade, backend, disrupted_s) DO UPDATE SET runs = runs + 1,
		first = min(first, excluded.first), last = max(last, excluded.last);
END;

CREATE TRIGGER disruption_days_update AFTER UPDATE ON run_disruption_totals
BEGIN
	DELETE FROM disruption_days WHERE runs = 1 AND OLD.run_started_at IS NOT NULL AND OLD.disrupted_s IS NOT NULL AND OLD.run_result IN ('success', 'failure', 'error') AND OLD.run_in_rates IS NOT 0
		AND day = substr(OLD.run_started_at, 1, 10) AND job = OLD.job AND release = coalesce(OLD.run_release, '')
		AND from_release = coalesce(OLD.run_from_release, '') AND upgrade = coalesce(OLD.run_upgrade, '')
		AND backend = OLD.backend AND disrupted_s = OLD.disrupted_s;
	UPDATE disruption_days SET runs = runs - 1
	WHERE OLD.run_started_at IS NOT NULL AND OLD.disrupted_s IS NOT NULL AND OLD.run_result IN ('success', 'failure', 'error') AND OLD.run_in_rates IS NOT 0
		AND day = substr(OLD.run_started_at, 1, 10) AND job = OLD.job AND release = coalesce(OLD.run_release, '')
		AND from_release = coalesce(OLD.run_from_release, '') AND upgrade = coalesce(OLD.run_upgrade, '')
		AND backend = OLD.backend AND disrupted_s = OLD.disrupted_s;
	UPDATE disruption_days SET
		first = (SELECT min(t.run_started_at) FROM run_disruption_totals t INDEXED BY run_disruption_totals_days WHERE substr(t.run_started_at, 1, 10) = substr(OLD.run_started_at, 1, 10) AND t.job = OLD.job
			AND coalesce(t.run_release, '') = coalesce(OLD.run_release, '') AND coalesce(t.run_from_release, '') = coalesce(OLD.run_from_release, '')
			AND coalesce(t.run_upgrade, '') = coalesce(OLD.run_upgrade, '') AND t.backend = OLD.backend AND t.disrupted_s = OLD.disrupted_s
			AND t.run_started_at IS NOT NULL AND t.run_result IN ('success', 'failure', 'error') AND t.run_in_rates IS NOT 0),
		last = (SELECT max(t.run_started_at) FROM run_disruption_totals t INDEXED BY run_disruption_totals_days WHERE substr(t.run_started_at, 1, 10) = substr(OLD.run_started_at, 1, 10) AND t.job = OLD.job
			AND coalesce(t.run_release, '') = coalesce(OLD.run_release, '') AND coalesce(t.run_from_release, '') = coalesce(OLD.run_from_release, '')
			AND coalesce(t.run_upgrade, '') = coalesce(OLD.run_upgrade, '') AND t.backend = OLD.backend AND t.disrupted_s = OLD.disrupted_s
			AND t.run_started_at IS NOT NULL AND t.run_result IN ('success', 'failure', 'error') AND t.run_in_rates IS NOT 0)
	WHERE OLD.run_started_at IS NOT NULL AND OLD.disrupted_s IS NOT NULL AND OLD.run_result IN ('success', 'failure', 'error') AND OLD.run_in_rates IS NOT 0
		AND day = substr(OLD.run_started_at, 1, 10) AND job = OLD.job AND release = coalesce(OLD.run_release, '')
		AND from_release = coalesce(OLD.run_from_release, '') AND upgrade = coalesce(OLD.run_upgrade, '')
		AND backend = OLD.backend AND disrupted_s = OLD.disrupted_s AND (first = OLD.run_started_at OR last = OLD.run_started_at);
	INSERT INTO disruption_days (day, job, release, from_release, upgrade, backend, disrupted_s, runs, first, last)
	SELECT substr(NEW.run_started_at, 1, 10), NEW.job, coalesce(NEW.run_release, ''), coalesce(NEW.run_from_release, ''),
		coalesce(NEW.run_upgrade, ''), NEW.backend, NEW.disrupted_s, 1, NEW.run_started_at, NEW.run_started_at
	WHERE NEW.run_started_at IS NOT NULL AND NEW.disrupted_s IS NOT NULL AND NEW.run_result IN ('success', 'failure', 'error') AND NEW.run_in_rates IS NOT 0
	ON CONFLICT (day, job, release, from_release, upgrade, backend, disrupted_s) DO UPDATE SET runs = runs + 1,
		first = min(first, excluded.first), last = max(last, excluded.last);
END;

CREATE TRIGGER disruption_days_delete AFTER DELETE ON run_disruption_totals
BEGIN
	DELETE FROM disruption_days WHERE runs = 1 AND OLD.run_started_at IS NOT NULL AND OLD.disrupted_s IS NOT NULL AND OLD.run_result IN ('success', 'failure', 'error') AND OLD.run_in_rates IS NOT 0
		AND day = substr(OLD.run_started_at, 1, 10) AND job = OLD.job AND release = coalesce(OLD.run_release, '')
		AND from_release = coalesce(OLD.run_from_release, '') AND upgrade = coalesce(OLD.run_upgrade, '')
		AND backend = OLD.backend AND disrupted_s = OLD.disrupted_s;
	UPDATE disruption_days SET runs = runs - 1
	WHERE OLD.run_started_at IS NOT NULL AND OLD.disrupted_s IS NOT NULL AND OLD.run_result IN ('success', 'failure', 'error') AND OLD.run_in_rates IS NOT 0
		AND day = substr(OLD.run_started_at, 1, 10) AND job = OLD.job AND release = coalesce(OLD.run_release, '')
		AND from_release = coalesce(OLD.run_from_release, '') AND upgrade = coalesce(OLD.run_upgrade, '')
		AND backend = OLD.backend AND disrupted_s = OLD.disrupted_s;
	UPDATE disruption_days SET
		first = (SELECT min(t.run_started_at) FROM run_disruption_totals t INDEXED BY run_disruption_totals_days WHERE substr(t.run_started_at, 1, 10) = substr(OLD.run_started_at, 1, 10) AND t.job = OLD.job
			AND coalesce(t.run_release, '') = coalesce(OLD.run_release, '') AND coalesce(t.run_from_release, '') = coalesce(OLD.run_from_release, '')
			AND coalesce(t.run_upgrade, '') = coalesce(OLD.run_upgrade, '') AND t.backend = OLD.backend AND t.disrupted_s = OLD.disrupted_s
			AND t.run_started_at IS NOT NULL AND t.run_result IN ('success', 'failure', 'error') AND t.run_in_rates IS NOT 0),
		last = (SELECT max(t.run_started_at) FROM run_disruption_totals t INDEXED BY run_disruption_totals_days WHERE substr(t.run_started_at, 1, 10) = substr(OLD.run_started_at, 1, 10) AND t.job = OLD.job
			AND coalesce(t.run_release, '') = coalesce(OLD.run_release, '') AND coalesce(t.run_from_release, '') = coalesce(OLD.run_from_release, '')
			AND coalesce(t.run_upgrade, '') = coalesce(OLD.run_upgrade, '') AND t.backend = OLD.backend AND t.disrupted_s = OLD.disrupted_s
			AND t.run_started_at IS NOT NULL AND t.run_result IN ('success', 'failure', 'error') AND t.run_in_rates IS NOT 0)
	WHERE OLD.run_started_at IS NOT NULL AND OLD.disrupted_s IS NOT NULL AND OLD.run_result IN ('success', 'failure', 'error') AND OLD.run_in_rates IS NOT 0
		AND day = substr(OLD.run_started_at, 1, 10) AND job = OLD.job AND release = coalesce(OLD.run_release, '')
		AND from_release = coalesce(OLD.run_from_release, '') AND upgrade = coalesce(OLD.run_upgrade, '')
		AND backend = OLD.backend AND disrupted_s = OLD.disrupted_s AND (first = OLD.run_started_at OR last = OLD.run_started_at);
END;

CREATE TRIGGER run_symptoms_copy AFTER INSERT ON run_symptoms
WHEN EXISTS (SELECT 1 FROM runs r WHERE r.job = NEW.job AND r.build_id = NEW.build_id
	AND (r.started_at IS NOT NEW.run_started_at OR r.result IS NOT NEW.run_result
		OR CASE WHEN r.overall_result IN ('N', 'n') THEN 0 ELSE r.upgrade_started END IS NOT NEW.run_in_rates
		OR r.release IS NOT NEW.run_release OR r.from_release IS NOT NEW.run_from_release OR r.upgrade IS NOT NEW.run_upgrade))
BEGIN
	UPDATE run_symptoms SET (run_started_at, run_result, run_in_rates, run_release, run_from_release, run_upgrade) =
		(SELECT r.started_at, r.result, CASE WHEN r.overall_result IN ('N', 'n') THEN 0 ELSE r.upgrade_started END,
			r.release, r.from_release, r.upgrade FROM runs r
		 WHERE r.job = NEW.job AND r.build_id = NEW.build_id)
	WHERE rowid = NEW.rowid;
END;

CREATE TRIGGER run_disruptions_copy AFTER INSERT ON run_disruptions
WHEN EXISTS (SELECT 1 FROM runs r WHERE r.job = NEW.job AND r.build_id = NEW.build_id
	AND (r.started_at IS NOT NEW.run_started_at OR r.result IS NOT NEW.run_result
		OR CASE WHEN r.overall_result IN ('N', 'n') THEN 0 ELSE r.upgrade_started END IS NOT NEW.run_in_rates
		OR r.release IS NOT NEW.run_release OR r.from_release IS NOT NEW.run_from_release OR r.upgrade IS NOT NEW.run_upgrade))
BEGIN
	UPDATE run_disruptions SET (run_started_at, run_result, run_in_rates, run_release, run_from_release, run_upgrade) =
		(SELECT r.started_at, r.result, CASE WHEN r.overall_result IN ('N', 'n') THEN 0 ELSE r.upgrade_started END,
			r.release, r.from_release, r.upgrade FROM runs r
		 WHERE r.job = NEW.job AND r.build_id = NEW.build_id)
	WHERE rowid = NEW.rowid;
END;

CREATE TRIGGER runs_copy_insert AFTER INSERT ON runs
BEGIN
	UPDATE run_symptoms SET run_started_at = NEW.started_at, run_result = NEW.result,
		run_in_rates = CASE WHEN NEW.overall_result IN ('N', 'n') THEN 0 ELSE NEW.upgrade_started END,
		run_release = NEW.release, run_from_release = NEW.from_release, run_upgrade = NEW.upgrade
	WHERE job = NEW.job AND build_id = NEW.build_id;
	UPDATE run_disruptions SET run_started_at = NEW.started_at, run_result = NEW.result,
		run_in_rates = CASE WHEN NEW.overall_result IN ('N', 'n') THEN 0 ELSE NEW.upgrade_started END,
		run_release = NEW.release, run_from_release = NEW.from_release, run_upgrade = NEW.upgrade
	WHERE job = NEW.job AND build_id = NEW.build_id;
END;

CREATE TRIGGER runs_copy_update AFTER UPDATE ON runs
WHEN OLD.started_at IS NOT NEW.started_at OR OLD.result IS NOT NEW.result OR OLD.upgrade_started IS NOT NEW.upgrade_started
	OR OLD.overall_result IS NOT NEW.overall_result
	OR OLD.release IS NOT NEW.release OR OLD.from_release IS NOT NEW.from_release OR OLD.upgrade IS NOT NEW.upgrade
BEGIN
	UPDATE run_symptoms SET run_started_at = NEW.started_at, run_result = NEW.result,
		run_in_rates = CASE WHEN NEW.overall_result IN ('N', 'n') THEN 0 ELSE NEW.upgrade_started END,
		run_release = NEW.release, run_from_release = NEW.from_release, run_upgrade = NEW.upgrade
	WHERE job = NEW.job AND build_id = NEW.build_id;
	UPDATE run_disruptions SET run_started_at = NEW.started_at, run_result = NEW.result,
		run_in_rates = CASE WHEN NEW.overall_result IN ('N', 'n') THEN 0 ELSE NEW.upgrade_started END,
		run_release = NEW.release, run_from_release = NEW.from_release, run_upgrade = NEW.upgrade
	WHERE job = NEW.job AND build_id = NEW.build_id;
END;

CREATE TRIGGER runs_copy_delete AFTER DELETE ON runs
BEGIN
	UPDATE run_symptoms SET run_started_at = NULL, run_result = NULL, run_in_rates = NULL,
		run_release = NULL, run_from_release = NULL, run_upgrade = NULL
	WHERE job = OLD.job AND build_id = OLD.build_id;
	UPDATE run_disruptions SET run_started_at = NULL, run_result = NULL, run_in_rates = NULL,
		run_release = NULL, run_from_release = NULL, run_upgrade = NULL
	WHERE job = OLD.job AND build_id = OLD.build_id;
END;
