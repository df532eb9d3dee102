-- Which versions of the rules evaluated each run, matched or not: the
-- denominator of each rule's rates. Before this migration a run that no
-- version of a rule had read (a rule added after the crawl) counted as a run
-- that did not show it.
--
-- Runs classified by the same rules share one rule set: a crawl or a
-- reclassify writes one set for all the runs it classifies, so a million
-- runs hold a handful of sets, and a count grouped by rule set stays a few
-- rows per job and edge. run_evaluations is the view of a row per run and
-- rule version.
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

-- No foreign key: a merge of shards copies a run before it maps the
-- shard's set to this database's (rule_sets.digest).
ALTER TABLE runs ADD COLUMN rule_set INTEGER;

-- The current version of each rule, and where it applies: a rule limited to
-- some topologies (a comma list; NULL: all) never counts a run of another.
ALTER TABLE symptoms ADD COLUMN rule_hash TEXT;
ALTER TABLE symptoms ADD COLUMN topology TEXT;
ALTER TABLE symptoms ADD COLUMN not_topology TEXT;

-- Runs stored before: they were read by the rules that were active then, in
-- versions that are not recorded. They are given one set of every symptom
-- known, each at the newest version that found a match (NULL when none did;
-- the next sync of the rules takes the current version for those), so that
-- the history counts as it did until a rule changes or is added; a rule
-- added later has not read them, and says so.
INSERT INTO rule_sets (id, digest) SELECT 1, 'before evaluations were recorded' WHERE EXISTS (SELECT 1 FROM runs);
INSERT INTO rule_set_rules (rule_set, symptom_id, rule_hash)
SELECT 1, s.id, (SELECT rs.rule_hash FROM run_symptoms rs WHERE rs.symptom_id = s.id AND rs.rule_hash IS NOT NULL
	ORDER BY rs.run_started_at DESC LIMIT 1)
FROM symptoms s WHERE EXISTS (SELECT 1 FROM rule_sets WHERE id = 1);
UPDATE runs SET rule_set = 1 WHERE EXISTS (SELECT 1 FROM rule_sets WHERE id = 1);
UPDATE symptoms SET rule_hash = (SELECT m.rule_hash FROM rule_set_rules m WHERE m.rule_set = 1 AND m.symptom_id = symptoms.id);
-- The built-in rule of cross-node pod traffic never applied to single-node
-- clusters (its matches were never found there); the next sync of the rules
-- says so for every rule.
UPDATE symptoms SET not_topology = 'single' WHERE id = 'pod-network-cross-node';

CREATE VIEW run_evaluations AS
SELECT r.job, r.build_id, m.symptom_id, m.rule_hash
FROM runs r JOIN rule_set_rules m ON m.rule_set = r.rule_set;

-- The counts group by rule set after the edge, so that the indexes still
-- give the rows in the order of the grouping (no sort).
DROP INDEX runs_analysis;
CREATE INDEX runs_analysis ON runs (job, release, from_release, upgrade, rule_set, upgrade_started, result, started_at);
DROP INDEX runs_days;
CREATE INDEX runs_days ON runs (substr(started_at, 1, 10), job, release, from_release, upgrade, rule_set, from_version,
	result, upgrade_started, started_at, edge);
-- A match counts when the rule's current version found it.
DROP INDEX run_symptoms_days;
CREATE INDEX run_symptoms_days ON run_symptoms (symptom_id, substr(run_started_at, 1, 10), job, run_release, run_from_release, run_upgrade,
	run_result, run_upgrade_started, run_started_at, build_id, rule_hash);

-- A verdict says how many runs of each side the rule has not read yet.
ALTER TABLE symptom_verdicts ADD COLUMN sample_unclassified INTEGER NOT NULL DEFAULT 0 CHECK (sample_unclassified >= 0);
ALTER TABLE symptom_verdicts ADD COLUMN basis_unclassified INTEGER NOT NULL DEFAULT 0 CHECK (basis_unclassified >= 0);

-- The one definition of a counted run (prowcrawl.PopulationOf), in SQL: for
-- every run and active symptom, the run's population for the rule's current
-- version, decided in this order: unfinished (aborted, pending), upgrade not
-- started, rule does not apply (its topologies), not classified yet (the
-- current version has not read it), counted. in_reach and evaluated say the
-- last two apart from the order; shows is whether the current version found
-- the symptom in the run. Every rate counts the rows whose population is
-- 'counted': v_counted_runs (the release scopes) and v_symptom_rates are
-- built on it, and the recipes of the docs on those.
CREATE VIEW v_run_populations AS
SELECT symptom_id, job, build_id, url, result, started_at, edge, variant, type, topology,
	CASE
		WHEN result NOT IN ('success', 'failure', 'error') THEN 'unfinished'
		WHEN upgrade_started IS 0 THEN 'upgrade not started'
		WHEN NOT in_reach THEN 'rule does not apply'
		WHEN NOT evaluated THEN 'not classified yet'
		ELSE 'counted'
	END AS population,
	in_reach, evaluated, shows
FROM (
	SELECT s.id AS symptom_id, r.job, r.build_id, r.url, r.result, r.started_at, r.edge, r.variant, r.upgrade_started,
		j.type, j.topology,
		coalesce(j.topology, '') = '' OR (instr(',' || coalesce(s.not_topology, '') || ',', ',' || j.topology || ',') = 0
			AND (s.topology IS NULL OR instr(',' || s.topology || ',', ',' || j.topology || ',') > 0)) AS in_reach,
		EXISTS (SELECT 1 FROM rule_set_rules m WHERE m.rule_set = r.rule_set AND m.symptom_id = s.id
			AND m.rule_hash IS s.rule_hash) AS evaluated,
		EXISTS (SELECT 1 FROM run_symptoms rs WHERE rs.job = r.job AND rs.build_id = r.build_id AND rs.symptom_id = s.id
			AND rs.rule_hash IS s.rule_hash) AS shows
	FROM runs r JOIN jobs j ON j.name = r.job JOIN symptoms s ON s.active = 1
);

-- The counted runs of the release scopes (edges, variants and the jobs
-- that are not presubmits): a row per run and symptom.
CREATE VIEW v_counted_runs AS
SELECT symptom_id, job, build_id, url, result, started_at, edge, variant, topology, shows
FROM v_run_populations
WHERE population = 'counted' AND type IS NOT 'presubmit';

-- The rates, built on v_run_populations: finished_runs are the counted
-- runs; left_out the runs whose upgrade never began, of those the rule
-- would count; not_classified those the rule's current version has not
-- read yet. A key whose runs are all out of the rule's reach has no row.
DROP VIEW v_symptom_rates;
CREATE VIEW v_symptom_rates AS
SELECT symptom, scope, scope_key, finished_runs, runs_with, failed_with, runs_with - failed_with AS passed_with,
	CASE WHEN finished_runs > 0 THEN runs_with * 1.0 / finished_runs END AS rate,
	failed_runs, CASE WHEN failed_runs > 0 THEN failed_with * 1.0 / failed_runs END AS share_of_failures,
	left_out, not_classified
FROM (
	SELECT symptom_id AS symptom, CASE WHEN type = 'presubmit' THEN 'presubmit' ELSE 'job' END AS scope, job AS scope_key,
		sum(population = 'counted') AS finished_runs, sum(population = 'counted' AND shows) AS runs_with,
		sum(population = 'counted' AND shows AND result <> 'success') AS failed_with,
		sum(population = 'counted' AND result <> 'success') AS failed_runs,
		sum(population = 'upgrade not started' AND in_reach AND evaluated) AS left_out,
		sum(population = 'not classified yet') AS not_classified,
		sum(population <> 'unfinished' AND in_reach) AS reached
	FROM v_run_populations GROUP BY symptom_id, job
	UNION ALL
	SELECT symptom_id, 'edge', edge, sum(population = 'counted'), sum(population = 'counted' AND shows),
		sum(population = 'counted' AND shows AND result <> 'success'), sum(population = 'counted' AND result <> 'success'),
		sum(population = 'upgrade not started' AND in_reach AND evaluated), sum(population = 'not classified yet'),
		sum(population <> 'unfinished' AND in_reach)
	FROM v_run_populations WHERE type IS NOT 'presubmit' AND edge IS NOT NULL GROUP BY symptom_id, edge
	UNION ALL
	SELECT symptom_id, 'variant', variant, sum(population = 'counted'), sum(population = 'counted' AND shows),
		sum(population = 'counted' AND shows AND result <> 'success'), sum(population = 'counted' AND result <> 'success'),
		sum(population = 'upgrade not started' AND in_reach AND evaluated), sum(population = 'not classified yet'),
		sum(population <> 'unfinished' AND in_reach)
	FROM v_run_populations WHERE type IS NOT 'presubmit' AND variant IS NOT NULL GROUP BY symptom_id, variant
) WHERE reached > 0;
