-- This week's regressions: what the analyses of the last 7 days found, the
-- strongest first (drop the verdict condition to see the new ones too). The
-- analysis counts the runs v_counted_runs holds; these are the rows of
-- prowcrawl report whose verdict is regression, in every scope.
select symptom_id, scope, scope_key, comparison,
       sample_hits || '/' || sample_runs as sample, round(100 * sample_rate, 1) as sample_pct,
       basis_label, basis_hits || '/' || basis_runs as basis, round(100 * basis_rate, 1) as basis_pct,
       delta_points, round(p_value, 4) as p
from v_regressions
where verdict = 'regression'
  and computed_at >= strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-7 days');
