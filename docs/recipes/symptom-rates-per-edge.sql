-- Each symptom's rate per edge, of the counted runs (population 'counted' of
-- v_run_populations): the SAMPLE side's RUNS and HITS of prowcrawl report
-- --by edge. v_symptom_rates also has the scopes job and variant, and says
-- how many runs each rate left out and the rule has not read yet.
select scope_key as edge, symptom, runs_with || '/' || finished_runs as runs,
       round(100 * rate, 1) as pct, failed_with, passed_with, left_out, not_classified
from v_symptom_rates
where scope = 'edge' and runs_with > 0
order by symptom, rate desc, edge;
