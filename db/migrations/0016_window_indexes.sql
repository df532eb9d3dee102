-- Covering indexes for the reports bounded by a window (--since, --until):
-- the runs of the window by their start, with every column the window's
-- counts, disruption and from-versions read of a run, so that a window is
-- read from one index and not by a lookup of each run's wide row; and each
-- run's disruption by its key, with the seconds, so that a run's backends
-- are read from one index too.
CREATE INDEX IF NOT EXISTS runs_window ON runs (started_at, result, upgrade_started, job, build_id,
	release, from_release, upgrade, edge, from_version);
CREATE INDEX IF NOT EXISTS run_disruptions_run ON run_disruptions (job, build_id, backend, disrupted_s);
