-- The pod-to-pod seconds of the counted runs that show pod-network-cross-node,
-- one a line: the with_symptom numbers of that backend in prowcrawl report
-- --assess pod-network-cross-node (runs, median, P95, worst; percentiles
-- interpolate linearly between ranks).
select d.disrupted_s
from v_counted_runs c join v_disruption d on d.job = c.job and d.build_id = c.build_id
where c.symptom_id = 'pod-network-cross-node' and c.shows and d.backend = 'pod-to-pod-new-connections'
order by 1;
