-- Finished runs whose upgrade never began (the install failed, or the cluster
-- version operator never acknowledged the upgrade): left out of every rate,
-- the LEFT OUT of prowcrawl report.
select distinct job, build_id, result, edge, url from v_run_populations
where population = 'upgrade not started' order by 1, 2;
