-- A window's counts were one range of runs_window and run_symptoms_window,
-- but grouped by job and edge they were sorted first: 320,000 runs and
-- 200,000 symptom rows of a 30-day window on a million runs, a second or
-- more each in SQLite's sorter, and once more for the weekly trends. These
-- indexes begin with the day of the run's start (the date of started_at,
-- or of the copy run_started_at, migration 0017), then the job and the
-- edge: a window is still one range of them (by its days, the times
-- checked exactly in the index), and its rows come in the order of a
-- grouping by day, job and edge, which SQLite then streams without a sort.
-- From the days, the counts of the window and of its weeks are summed.
DROP INDEX runs_window;
CREATE INDEX runs_days ON runs (substr(started_at, 1, 10), job, release, from_release, upgrade, from_version,
	result, upgrade_started, started_at, edge);
DROP INDEX run_symptoms_window;
CREATE INDEX run_symptoms_days ON run_symptoms (symptom_id, substr(run_started_at, 1, 10), job, run_release, run_from_release, run_upgrade,
	run_result, run_upgrade_started, run_started_at, build_id);
