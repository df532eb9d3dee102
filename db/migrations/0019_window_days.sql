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

-- A window's disruption was read run by run: 1.3 million rows of
-- run_disruptions for 30 days of a million runs, several seconds only to
-- hand them over. The percentiles need every run's seconds, but not every
-- run: how many runs had each total is enough. run_disruption_totals holds
-- each run's total of each backend (its files summed; NULL when no file gave
-- a duration) with the copies of its run's columns, kept by the triggers
-- below from run_disruptions whatever writes it; run_disruption_totals_days
-- groups a window's totals by day, job, edge, backend and seconds as it is
-- read, so that a page reads one row per distinct total and day.
CREATE TABLE run_disruption_totals (
	job                 TEXT NOT NULL,
	build_id            INTEGER NOT NULL,
	backend             TEXT NOT NULL,
	disrupted_s         REAL,
	files               INTEGER NOT NULL,
	run_started_at      TEXT,
	run_result          TEXT,
	run_upgrade_started INTEGER,
	run_release         TEXT,
	run_from_release    TEXT,
	run_upgrade         TEXT,
	PRIMARY KEY (job, build_id, backend)
) STRICT;

-- The run's files of the backend summed in the order the analysis of every
-- run sums them (run_disruptions_backend: by seconds).
INSERT INTO run_disruption_totals (job, build_id, backend, disrupted_s, files, run_started_at, run_result, run_upgrade_started,
	run_release, run_from_release, run_upgrade)
SELECT d.job, d.build_id, d.backend, sum(d.disrupted_s), count(*), min(d.run_started_at), min(d.run_result), min(d.run_upgrade_started),
	min(d.run_release), min(d.run_from_release), min(d.run_upgrade)
FROM run_disruptions d INDEXED BY run_disruptions_backend
GROUP BY d.backend, d.job, d.build_id;

-- A run's total of a backend is counted again from its rows whenever one
-- of them is written, changed (its seconds, or the copies of its run's
-- columns) or deleted. The rows of a run carry the same copies.
CREATE TRIGGER run_disruption_totals_insert AFTER INSERT ON run_disruptions
BEGIN
	DELETE FROM run_disruption_totals WHERE job = NEW.job AND build_id = NEW.build_id AND backend = NEW.backend;
	INSERT INTO run_disruption_totals (job, build_id, backend, disrupted_s, files, run_started_at, run_result, run_upgrade_started,
		run_release, run_from_release, run_upgrade)
	SELECT d.job, d.build_id, d.backend, sum(d.disrupted_s), count(*), min(d.run_started_at), min(d.run_result), min(d.run_upgrade_started),
		min(d.run_release), min(d.run_from_release), min(d.run_upgrade)
	FROM run_disruptions d INDEXED BY run_disruptions_backend
	WHERE d.backend = NEW.backend AND d.job = NEW.job AND d.build_id = NEW.build_id
	GROUP BY d.backend, d.job, d.build_id;
END;

CREATE TRIGGER run_disruption_totals_update AFTER UPDATE ON run_disruptions
BEGIN
	DELETE FROM run_disruption_totals WHERE job = OLD.job AND build_id = OLD.build_id AND backend = OLD.backend;
	INSERT INTO run_disruption_totals (job, build_id, backend, disrupted_s, files, run_started_at, run_result, run_upgrade_started,
		run_release, run_from_release, run_upgrade)
	SELECT d.job, d.build_id, d.backend, sum(d.disrupted_s), count(*), min(d.run_started_at), min(d.run_result), min(d.run_upgrade_started),
		min(d.run_release), min(d.run_from_release), min(d.run_upgrade)
	FROM run_disruptions d INDEXED BY run_disruptions_backend
	WHERE d.backend = OLD.backend AND d.job = OLD.job AND d.build_id = OLD.build_id
	GROUP BY d.backend, d.job, d.build_id;
	DELETE FROM run_disruption_totals WHERE job = NEW.job AND build_id = NEW.build_id AND backend = NEW.backend;
	INSERT INTO run_disruption_totals (job, build_id, backend, disrupted_s, files, run_started_at, run_result, run_upgrade_started,
		run_release, run_from_release, run_upgrade)
	SELECT d.job, d.build_id, d.backend, sum(d.disrupted_s), count(*), min(d.run_started_at), min(d.run_result), min(d.run_upgrade_started),
		min(d.run_release), min(d.run_from_release), min(d.run_upgrade)
	FROM run_disruptions d INDEXED BY run_disruptions_backend
	WHERE d.backend = NEW.backend AND d.job = NEW.job AND d.build_id = NEW.build_id
	GROUP BY d.backend, d.job, d.build_id;
END;

CREATE TRIGGER run_disruption_totals_delete AFTER DELETE ON run_disruptions
BEGIN
	DELETE FROM run_disruption_totals WHERE job = OLD.job AND build_id = OLD.build_id AND backend = OLD.backend;
	INSERT INTO run_disruption_totals (job, build_id, backend, disrupted_s, files, run_started_at, run_result, run_upgrade_started,
		run_release, run_from_release, run_upgrade)
	SELECT d.job, d.build_id, d.backend, sum(d.disrupted_s), count(*), min(d.run_started_at), min(d.run_result), min(d.run_upgrade_started),
		min(d.run_release), min(d.run_from_release), min(d.run_upgrade)
	FROM run_disruptions d INDEXED BY run_disruptions_backend
	WHERE d.backend = OLD.backend AND d.job = OLD.job AND d.build_id = OLD.build_id
	GROUP BY d.backend, d.job, d.build_id;
END;

CREATE INDEX run_disruption_totals_days ON run_disruption_totals (substr(run_started_at, 1, 10), job, run_release, run_from_release,
	run_upgrade, backend, disrupted_s, run_result, run_upgrade_started, run_started_at);

-- Even grouped as read, a window's totals are a row of the index per run
-- and backend: 1.3 million for 30 days of a million runs, seconds to step
-- through. disruption_days holds, for every day, job, edge (as
-- run_disruption_totals copies it, '' for NULL) and backend, how many
-- counted runs (finished, their upgrade begun or not known not to have)
-- had each total, with the first and last start of them; totals that no
-- file gave a duration are not in it. A window reads its whole days here
-- and only its first and last days (and those where the time comparison's
-- windows begin and end) from run_disruption_totals. The triggers add a
-- total written to its cell and take a total deleted out of it (a run
-- rewritten is deleted, then written); only when the run taken out was the
-- first or last of its cell are the cell's ends found again, in
-- run_disruption_totals_days.
CREATE TABLE disruption_days (
	day          TEXT NOT NULL,
	job          TEXT NOT NULL,
	release      TEXT NOT NULL,
	from_release TEXT NOT NULL,
	upgrade      TEXT NOT NULL,
	backend      TEXT NOT NULL,
	disrupted_s  REAL NOT NULL,
	runs         INTEGER NOT NULL CHECK (runs > 0),
	first        TEXT NOT NULL,
	last         TEXT NOT NULL,
	PRIMARY KEY (day, job, release, from_release, upgrade, backend, disrupted_s)
) STRICT, WITHOUT ROWID;

INSERT INTO disruption_days (day, job, release, from_release, upgrade, backend, disrupted_s, runs, first, last)
SELECT substr(t.run_started_at, 1, 10), t.job, coalesce(t.run_release, ''), coalesce(t.run_from_release, ''), coalesce(t.run_upgrade, ''),
	t.backend, t.disrupted_s, count(*), min(t.run_started_at), max(t.run_started_at)
FROM run_disruption_totals t INDEXED BY run_disruption_totals_days
WHERE t.run_started_at IS NOT NULL AND t.disrupted_s IS NOT NULL AND t.run_result IN ('success', 'failure', 'error') AND t.run_upgrade_started IS NOT 0
GROUP BY substr(t.run_started_at, 1, 10), t.job, t.run_release, t.run_from_release, t.run_upgrade, t.backend, t.disrupted_s
ON CONFLICT (day, job, release, from_release, upgrade, backend, disrupted_s) DO UPDATE SET runs = runs + excluded.runs,
	first = min(first, excluded.first), last = max(last, excluded.last);

CREATE TRIGGER disruption_days_insert AFTER INSERT ON run_disruption_totals
BEGIN
	INSERT INTO disruption_days (day, job, release, from_release, upgrade, backend, disrupted_s, runs, first, last)
	SELECT substr(NEW.run_started_at, 1, 10), NEW.job, coalesce(NEW.run_release, ''), coalesce(NEW.run_from_release, ''),
		coalesce(NEW.run_upgrade, ''), NEW.backend, NEW.disrupted_s, 1, NEW.run_started_at, NEW.run_started_at
	WHERE NEW.run_started_at IS NOT NULL AND NEW.disrupted_s IS NOT NULL AND NEW.run_result IN ('success', 'failure', 'error') AND NEW.run_upgrade_started IS NOT 0
	ON CONFLICT (day, job, release, from_release, upgrade, backend, disrupted_s) DO UPDATE SET runs = runs + 1,
		first = min(first, excluded.first), last = max(last, excluded.last);
END;

CREATE TRIGGER disruption_days_update AFTER UPDATE ON run_disruption_totals
BEGIN
	DELETE FROM disruption_days WHERE runs = 1 AND OLD.run_started_at IS NOT NULL AND OLD.disrupted_s IS NOT NULL AND OLD.run_result IN ('success', 'failure', 'error') AND OLD.run_upgrade_started IS NOT 0
		AND day = substr(OLD.run_started_at, 1, 10) AND job = OLD.job AND release = coalesce(OLD.run_release, '')
		AND from_release = coalesce(OLD.run_from_release, '') AND upgrade = coalesce(OLD.run_upgrade, '')
		AND backend = OLD.backend AND disrupted_s = OLD.disrupted_s;
	UPDATE disruption_days SET runs = runs - 1
	WHERE OLD.run_started_at IS NOT NULL AND OLD.disrupted_s IS NOT NULL AND OLD.run_result IN ('success', 'failure', 'error') AND OLD.run_upgrade_started IS NOT 0
		AND day = substr(OLD.run_started_at, 1, 10) AND job = OLD.job AND release = coalesce(OLD.run_release, '')
		AND from_release = coalesce(OLD.run_from_release, '') AND upgrade = coalesce(OLD.run_upgrade, '')
		AND backend = OLD.backend AND disrupted_s = OLD.disrupted_s;
	UPDATE disruption_days SET
		first = (SELECT min(t.run_started_at) FROM run_disruption_totals t INDEXED BY run_disruption_totals_days WHERE substr(t.run_started_at, 1, 10) = substr(OLD.run_started_at, 1, 10) AND t.job = OLD.job
			AND coalesce(t.run_release, '') = coalesce(OLD.run_release, '') AND coalesce(t.run_from_release, '') = coalesce(OLD.run_from_release, '')
			AND coalesce(t.run_upgrade, '') = coalesce(OLD.run_upgrade, '') AND t.backend = OLD.backend AND t.disrupted_s = OLD.disrupted_s
			AND t.run_started_at IS NOT NULL AND t.run_result IN ('success', 'failure', 'error') AND t.run_upgrade_started IS NOT 0),
		last = (SELECT max(t.run_started_at) FROM run_disruption_totals t INDEXED BY run_disruption_totals_days WHERE substr(t.run_started_at, 1, 10) = substr(OLD.run_started_at, 1, 10) AND t.job = OLD.job
			AND coalesce(t.run_release, '') = coalesce(OLD.run_release, '') AND coalesce(t.run_from_release, '') = coalesce(OLD.run_from_release, '')
			AND coalesce(t.run_upgrade, '') = coalesce(OLD.run_upgrade, '') AND t.backend = OLD.backend AND t.disrupted_s = OLD.disrupted_s
			AND t.run_started_at IS NOT NULL AND t.run_result IN ('success', 'failure', 'error') AND t.run_upgrade_started IS NOT 0)
	WHERE OLD.run_started_at IS NOT NULL AND OLD.disrupted_s IS NOT NULL AND OLD.run_result IN ('success', 'failure', 'error') AND OLD.run_upgrade_started IS NOT 0
		AND day = substr(OLD.run_started_at, 1, 10) AND job = OLD.job AND release = coalesce(OLD.run_release, '')
		AND from_release = coalesce(OLD.run_from_release, '') AND upgrade = coalesce(OLD.run_upgrade, '')
		AND backend = OLD.backend AND disrupted_s = OLD.disrupted_s AND (first = OLD.run_started_at OR last = OLD.run_started_at);
	INSERT INTO disruption_days (day, job, release, from_release, upgrade, backend, disrupted_s, runs, first, last)
	SELECT substr(NEW.run_started_at, 1, 10), NEW.job, coalesce(NEW.run_release, ''), coalesce(NEW.run_from_release, ''),
		coalesce(NEW.run_upgrade, ''), NEW.backend, NEW.disrupted_s, 1, NEW.run_started_at, NEW.run_started_at
	WHERE NEW.run_started_at IS NOT NULL AND NEW.disrupted_s IS NOT NULL AND NEW.run_result IN ('success', 'failure', 'error') AND NEW.run_upgrade_started IS NOT 0
	ON CONFLICT (day, job, release, from_release, upgrade, backend, disrupted_s) DO UPDATE SET runs = runs + 1,
		first = min(first, excluded.first), last = max(last, excluded.last);
END;

CREATE TRIGGER disruption_days_delete AFTER DELETE ON run_disruption_totals
BEGIN
	DELETE FROM disruption_days WHERE runs = 1 AND OLD.run_started_at IS NOT NULL AND OLD.disrupted_s IS NOT NULL AND OLD.run_result IN ('success', 'failure', 'error') AND OLD.run_upgrade_started IS NOT 0
		AND day = substr(OLD.run_started_at, 1, 10) AND job = OLD.job AND release = coalesce(OLD.run_release, '')
		AND from_release = coalesce(OLD.run_from_release, '') AND upgrade = coalesce(OLD.run_upgrade, '')
		AND backend = OLD.backend AND disrupted_s = OLD.disrupted_s;
	UPDATE disruption_days SET runs = runs - 1
	WHERE OLD.run_started_at IS NOT NULL AND OLD.disrupted_s IS NOT NULL AND OLD.run_result IN ('success', 'failure', 'error') AND OLD.run_upgrade_started IS NOT 0
		AND day = substr(OLD.run_started_at, 1, 10) AND job = OLD.job AND release = coalesce(OLD.run_release, '')
		AND from_release = coalesce(OLD.run_from_release, '') AND upgrade = coalesce(OLD.run_upgrade, '')
		AND backend = OLD.backend AND disrupted_s = OLD.disrupted_s;
	UPDATE disruption_days SET
		first = (SELECT min(t.run_started_at) FROM run_disruption_totals t INDEXED BY run_disruption_totals_days WHERE substr(t.run_started_at, 1, 10) = substr(OLD.run_started_at, 1, 10) AND t.job = OLD.job
			AND coalesce(t.run_release, '') = coalesce(OLD.run_release, '') AND coalesce(t.run_from_release, '') = coalesce(OLD.run_from_release, '')
			AND coalesce(t.run_upgrade, '') = coalesce(OLD.run_upgrade, '') AND t.backend = OLD.backend AND t.disrupted_s = OLD.disrupted_s
			AND t.run_started_at IS NOT NULL AND t.run_result IN ('success', 'failure', 'error') AND t.run_upgrade_started IS NOT 0),
		last = (SELECT max(t.run_started_at) FROM run_disruption_totals t INDEXED BY run_disruption_totals_days WHERE substr(t.run_started_at, 1, 10) = substr(OLD.run_started_at, 1, 10) AND t.job = OLD.job
			AND coalesce(t.run_release, '') = coalesce(OLD.run_release, '') AND coalesce(t.run_from_release, '') = coalesce(OLD.run_from_release, '')
			AND coalesce(t.run_upgrade, '') = coalesce(OLD.run_upgrade, '') AND t.backend = OLD.backend AND t.disrupted_s = OLD.disrupted_s
			AND t.run_started_at IS NOT NULL AND t.run_result IN ('success', 'failure', 'error') AND t.run_upgrade_started IS NOT 0)
	WHERE OLD.run_started_at IS NOT NULL AND OLD.disrupted_s IS NOT NULL AND OLD.run_result IN ('success', 'failure', 'error') AND OLD.run_upgrade_started IS NOT 0
		AND day = substr(OLD.run_started_at, 1, 10) AND job = OLD.job AND release = coalesce(OLD.run_release, '')
		AND from_release = coalesce(OLD.run_from_release, '') AND upgrade = coalesce(OLD.run_upgrade, '')
		AND backend = OLD.backend AND disrupted_s = OLD.disrupted_s AND (first = OLD.run_started_at OR last = OLD.run_started_at);
END;
