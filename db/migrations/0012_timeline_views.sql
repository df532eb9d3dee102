-- The analysts' views gain what 0007 records: v_run_symptoms the last
-- evidence of each symptom (last_at) and how long the run showed it
-- (duration_s, NULL unless both ends are dated); v_disruption the run's
-- variant and its job's topology and type. The other columns are
-- unchanged.
DROP VIEW v_run_symptoms;
CREATE VIEW v_run_symptoms AS
SELECT r.job, r.build_id, r.url, r.result, r.started_at, r.edge, j.platform, j.network,
	rs.symptom_id, rs.hits, rs.file, rs.line, rs.excerpt, rs.at, j.arch, r.variant, j.topology,
	r.upgrade_started, j.type, rs.last_at,
	round((julianday(rs.last_at) - julianday(rs.at)) * 86400, 3) AS duration_s,
	r.finished_at, r.upgrade_state
FROM run_symptoms rs
JOIN runs r ON r.job = rs.job AND r.build_id = rs.build_id
JOIN jobs j ON j.name = r.job;

DROP VIEW v_disruption;
CREATE VIEW v_disruption AS
SELECT r.job, r.build_id, r.url, r.result, r.started_at, r.edge, j.platform, j.network, j.arch,
	r.from_version, r.to_version, r.upgrade_state,
	d.backend, d.backend_name, d.connection, count(*) AS files, sum(d.disrupted_s) AS disrupted_s,
	r.variant, j.topology, j.type, r.upgrade_started
FROM run_disruptions d
JOIN runs r ON r.job = d.job AND r.build_id = d.build_id
JOIN jobs j ON j.name = r.job
GROUP BY d.job, d.build_id, d.backend;
