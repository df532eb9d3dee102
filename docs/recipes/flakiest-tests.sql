-- The flakiest tests per edge: a flake failed and passed in the same run
-- (Sippy's rule); runs are the finished runs of the edge where the test ran.
select scope_key as edge, name, runs, flakes, failures, round(100 * flake_rate, 1) as flake_pct
from test_flake_rates
where scope = 'edge' and flakes > 0
order by flake_rate desc, flakes desc
limit 20;
