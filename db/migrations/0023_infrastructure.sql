-- A run that failed for a reason of CI's, not the product's (Sippy's
-- overall result N, external infrastructure, or n, internal: its
-- InfraFailure), is counted apart from every rate, as a run whose upgrade
-- never began is: it is in no denominator and no numerator, and every page
-- says how many it left out.
--
-- The rows of run_symptoms, run_disruptions and run_disruption_totals copy
-- whether their run is in the rates (migration 0017 copied whether its
-- upgrade began): the copy is renamed run_in_rates, 0 when the run is
-- counted apart (its upgrade never began, or it is an infrastructure
-- failure), else what upgrade_started holds (NULL, unknown, counts as
-- begun). The indexes and the triggers that read it follow the rename.
ALTER TABLE run_symptoms RENAME COLUMN run_upgrade_started TO run_in_rates;
ALTER TABLE run_disruptions RENAME COLUMN run_upgrade_started TO run_in_rates;
ALTER TABLE run_disruption_totals RENAME COLUMN run_upgrade_started TO run_in_rates;

-- The triggers that copy a run's columns to its rows copy run_in_rates.
DROP TRIGGER run_symptoms_copy;
DROP TRIGGER run_disruptions_copy;
DROP TRIGGER runs_copy_insert;
DROP TRIGGER runs_copy_update;
DROP TRIGGER runs_copy_delete;

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

-- The infrastructure failures stored before leave the rates (the update of
-- run_disruptions carries it on to the totals and the days).
UPDATE run_symptoms AS s SET run_in_rates = 0
FROM runs AS r
WHERE r.job = s.job AND r.build_id = s.build_id AND r.overall_result IN ('N', 'n') AND s.run_in_rates IS NOT 0;
UPDATE run_disruptions AS d SET run_in_rates = 0
FROM runs AS r
WHERE r.job = d.job AND r.build_id = d.build_id AND r.overall_result IN ('N', 'n') AND d.run_in_rates IS NOT 0;

-- The counts read the overall result from the indexes that serve them.
DROP INDEX runs_analysis;
CREATE INDEX runs_analysis ON runs (job, release, from_release, upgrade, rule_set, upgrade_started, overall_result, result, started_at);
DROP INDEX runs_days;
CREATE INDEX runs_days ON runs (substr(started_at, 1, 10), job, release, from_release, upgrade, rule_set, from_version,
	result, upgrade_started, overall_result, started_at, edge);

-- The population 'infrastructure' comes after 'aggregated' and before
-- 'upgrade not started' (an install that failed for lack of a cloud lease
-- is an infrastructure failure first); the rates' left_out counts both
-- populations counted apart, and infrastructure the infrastructure
-- failures alone.
DROP VIEW v_symptom_rates;
DROP VIEW v_counted_runs;
DROP VIEW v_run_populations;
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
