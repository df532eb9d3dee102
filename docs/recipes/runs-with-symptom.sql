-- The counted runs of an edge that show a symptom, newest first, with their
-- Prow links and first evidence: the HITS of prowcrawl report's row of that
-- symptom and edge (a run whose upgrade never began is not among them).
select c.started_at, c.result, c.url, rs.hits, rs.file, rs.line, rs.excerpt
from v_counted_runs c
join run_symptoms rs on rs.job = c.job and rs.build_id = c.build_id and rs.symptom_id = c.symptom_id
where c.symptom_id = 'pod-network-cross-node' and c.edge = '4.13->4.14 minor' and c.shows
order by c.started_at desc;
