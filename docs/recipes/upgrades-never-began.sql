-- Finished runs counted apart: their upgrade never began (the install failed,
-- or the cluster version operator never acknowledged the upgrade), or they
-- failed for CI's infrastructure (Sippy's overall result N or n). Left out of
-- every rate: the LEFT OUT of prowcrawl report --wide.
select distinct population, job, build_id, result, overall_result, edge, url from v_run_populations
where population in ('upgrade not started', 'infrastructure') order by 1, 2, 3;
