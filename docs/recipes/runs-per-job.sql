-- Runs per job and result: every run stored, counted or not (the RUNS,
-- SUCCESS, FAILURE, ABORTED, ERROR and PENDING columns of prowcrawl status
-- --wide).
select job, result, count(*) as runs from runs group by 1, 2 order by 1, 2;
