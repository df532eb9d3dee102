-- Each backend's disruption on an edge, worst first: the seconds the e2e
-- monitor could not reach it in each counted run (finished, its upgrade
-- begun; a run's files summed). The runs and the worst are those of the
-- edge's release comparison in prowcrawl report --assess (what_is_the_impact
-- .disruption[].release_comparison[].sample). Per-run rows: v_disruption;
-- the analysis's medians and 95th percentiles: disruption_stats.
select d.backend, count(*) as runs, sum(d.disrupted_s > 0) as disrupted_runs,
       printf('%.1f', max(d.disrupted_s)) as worst_s
from v_disruption d
where d.edge = '4.13->4.14 minor'
  and exists (select 1 from v_run_populations p where p.job = d.job and p.build_id = d.build_id
              and p.population not in ('unfinished', 'aggregated', 'infrastructure', 'upgrade not started'))
group by d.backend
order by max(d.disrupted_s) desc, d.backend;
