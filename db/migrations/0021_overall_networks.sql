-- Each run's overall result as Sippy derives it (S F U I N n A R; NULL for a
-- run stored before, until it is read again), and its own networks: the
-- cluster (pod) and service CIDRs of its network.config.openshift.io, IPv4
-- and IPv6, comma-separated (NULL when the run does not say).
ALTER TABLE runs ADD COLUMN overall_result TEXT CHECK (overall_result IN ('S', 'F', 'U', 'I', 'N', 'n', 'A', 'R'));
ALTER TABLE runs ADD COLUMN cluster_networks TEXT;
ALTER TABLE runs ADD COLUMN service_networks TEXT;

-- The runs stored before whose result alone says it.
UPDATE runs SET overall_result = CASE result WHEN 'success' THEN 'S' WHEN 'aborted' THEN 'A' WHEN 'error' THEN 'n' WHEN 'pending' THEN 'R' END
WHERE overall_result IS NULL AND result <> 'failure';

-- An aggregated job's run (aggregated-*: the release analysis aggregator)
-- summarises runs that are counted already: it is counted in no rate, as
-- Sippy leaves the aggregated variant out of every one.
DROP VIEW v_symptom_rates;
DROP VIEW v_counted_runs;
DROP VIEW v_run_populations;
CREATE VIEW v_run_populations AS
SELECT symptom_id, job, build_id, url, result, started_at, edge, variant, type, topology,
	CASE
		WHEN result NOT IN ('success', 'failure', 'error') THEN 'unfinished'
		WHEN job GLOB 'aggregated-*' THEN 'aggregated'
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
	left_out, not_classified
FROM (
	SELECT symptom_id AS symptom, CASE WHEN type = 'presubmit' THEN 'presubmit' ELSE 'job' END AS scope, job AS scope_key,
		sum(population = 'counted') AS finished_runs, sum(population = 'counted' AND shows) AS runs_with,
		sum(population = 'counted' AND shows AND result <> 'success') AS failed_with,
		sum(population = 'counted' AND result <> 'success') AS failed_runs,
		sum(population = 'upgrade not started' AND in_reach AND evaluated) AS left_out,
		sum(population = 'not classified yet') AS not_classified,
		sum(population NOT IN ('unfinished', 'aggregated') AND in_reach) AS reached
	FROM v_run_populations GROUP BY symptom_id, job
	UNION ALL
	SELECT symptom_id, 'edge', edge, sum(population = 'counted'), sum(population = 'counted' AND shows),
		sum(population = 'counted' AND shows AND result <> 'success'), sum(population = 'counted' AND result <> 'success'),
		sum(population = 'upgrade not started' AND in_reach AND evaluated), sum(population = 'not classified yet'),
		sum(population NOT IN ('unfinished', 'aggregated') AND in_reach)
	FROM v_run_populations WHERE type IS NOT 'presubmit' AND edge IS NOT NULL GROUP BY symptom_id, edge
	UNION ALL
	SELECT symptom_id, 'variant', variant, sum(population = 'counted'), sum(population = 'counted' AND shows),
		sum(population = 'counted' AND shows AND result <> 'success'), sum(population = 'counted' AND result <> 'success'),
		sum(population = 'upgrade not started' AND in_reach AND evaluated), sum(population = 'not classified yet'),
		sum(population NOT IN ('unfinished', 'aggregated') AND in_reach)
	FROM v_run_populations WHERE type IS NOT 'presubmit' AND variant IS NOT NULL GROUP BY symptom_id, variant
) WHERE reached > 0;
