-- Failure rate per upgrade edge, platform and network over the last 14 days,
-- of the runs a rate counts: finished, not aggregated nor infrastructure
-- failures, their upgrade begun (the populations before a rule's own, in
-- v_run_populations), not presubmits (they have no edge). The answer depends on the day it is asked.
select p.edge, j.platform, j.network,
       count(*) as runs, sum(p.result <> 'success') as failed,
       round(100.0 * sum(p.result <> 'success') / count(*), 1) as pct_failed
from (select distinct job, build_id, edge, result from v_run_populations
      where population not in ('unfinished', 'aggregated', 'infrastructure', 'upgrade not started') and type is not 'presubmit' and edge is not null
        and started_at >= strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-14 days')) p
join jobs j on j.name = p.job
group by 1, 2, 3 order by pct_failed desc, 1, 2, 3;
