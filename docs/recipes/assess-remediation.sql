-- How involved is remediation, for pod-network-cross-node: of the counted runs
-- that show it, how many have timed evidence, the longest it lasted (first to
-- last evidence, seconds), and in how many the cluster recovered by itself
-- (the upgrade completed and the last evidence came before the run ended):
-- duration.runs, duration.max_s and recovered_by_itself of prowcrawl report
-- --assess pod-network-cross-node.
select count(v.duration_s) as timed_runs, max(v.duration_s) as worst_s,
       sum(v.upgrade_state = 'Completed' and v.last_at < v.finished_at) as recovered,
       sum(v.upgrade_state = 'Partial' or (v.upgrade_state is not null and v.last_at >= v.finished_at)) as not_recovered
from v_counted_runs c join v_run_symptoms v on v.job = c.job and v.build_id = c.build_id and v.symptom_id = c.symptom_id
where c.symptom_id = 'pod-network-cross-node' and c.shows;
