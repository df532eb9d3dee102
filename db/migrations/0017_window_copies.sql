-- A report bounded by a window (--since, --until) counted the symptoms and
-- the disruption of the window's runs by looking each row up in runs: on a
-- million runs, a 30-day window is 320,000 runs, 200,000 symptom rows and
-- 1.3 million disruption rows, and the lookups were nearly all of a page's
-- time (a minute for the assessment). Percentiles of disruption need each
-- run's seconds, so aggregates by day could not serve them; instead, each
-- row of run_symptoms and run_disruptions carries a copy of what a window
-- and a rate read of its run, and an index in window order covers it: a
-- window is one range of an index, and nothing is looked up.
--
-- The copies are named run_<column of runs>: run_started_at, run_result,
-- run_upgrade_started, run_release, run_from_release, run_upgrade. They are
-- not for analysts' queries (join runs, as the views do); the triggers
-- below keep them equal to the run's columns whatever writes (a crawl,
-- reclassify, a merge of shards, the derivations of a migration), and this
-- migration fills them for the rows stored before.
ALTER TABLE run_symptoms ADD COLUMN run_started_at TEXT;
ALTER TABLE run_symptoms ADD COLUMN run_result TEXT;
ALTER TABLE run_symptoms ADD COLUMN run_upgrade_started INTEGER;
ALTER TABLE run_symptoms ADD COLUMN run_release TEXT;
ALTER TABLE run_symptoms ADD COLUMN run_from_release TEXT;
ALTER TABLE run_symptoms ADD COLUMN run_upgrade TEXT;

ALTER TABLE run_disruptions ADD COLUMN run_started_at TEXT;
ALTER TABLE run_disruptions ADD COLUMN run_result TEXT;
ALTER TABLE run_disruptions ADD COLUMN run_upgrade_started INTEGER;
ALTER TABLE run_disruptions ADD COLUMN run_release TEXT;
ALTER TABLE run_disruptions ADD COLUMN run_from_release TEXT;
ALTER TABLE run_disruptions ADD COLUMN run_upgrade TEXT;

UPDATE run_symptoms AS s SET run_started_at = r.started_at, run_result = r.result, run_upgrade_started = r.upgrade_started,
	run_release = r.release, run_from_release = r.from_release, run_upgrade = r.upgrade
FROM runs AS r
WHERE r.job = s.job AND r.build_id = s.build_id;

UPDATE run_disruptions AS d SET run_started_at = r.started_at, run_result = r.result, run_upgrade_started = r.upgrade_started,
	run_release = r.release, run_from_release = r.from_release, run_upgrade = r.upgrade
FROM runs AS r
WHERE r.job = d.job AND r.build_id = d.build_id;

-- A row written without its run's copies (or with others) gets them.
CREATE TRIGGER run_symptoms_copy AFTER INSERT ON run_symptoms
WHEN EXISTS (SELECT 1 FROM runs r WHERE r.job = NEW.job AND r.build_id = NEW.build_id
	AND (r.started_at IS NOT NEW.run_started_at OR r.result IS NOT NEW.run_result OR r.upgrade_started IS NOT NEW.run_upgrade_started
		OR r.release IS NOT NEW.run_release OR r.from_release IS NOT NEW.run_from_release OR r.upgrade IS NOT NEW.run_upgrade))
BEGIN
	UPDATE run_symptoms SET (run_started_at, run_result, run_upgrade_started, run_release, run_from_release, run_upgrade) =
		(SELECT r.started_at, r.result, r.upgrade_started, r.release, r.from_release, r.upgrade FROM runs r
		 WHERE r.job = NEW.job AND r.build_id = NEW.build_id)
	WHERE rowid = NEW.rowid;
END;

CREATE TRIGGER run_disruptions_copy AFTER INSERT ON run_disruptions
WHEN EXISTS (SELECT 1 FROM runs r WHERE r.job = NEW.job AND r.build_id = NEW.build_id
	AND (r.started_at IS NOT NEW.run_started_at OR r.result IS NOT NEW.run_result OR r.upgrade_started IS NOT NEW.run_upgrade_started
		OR r.release IS NOT NEW.run_release OR r.from_release IS NOT NEW.run_from_release OR r.upgrade IS NOT NEW.run_upgrade))
BEGIN
	UPDATE run_disruptions SET (run_started_at, run_result, run_upgrade_started, run_release, run_from_release, run_upgrade) =
		(SELECT r.started_at, r.result, r.upgrade_started, r.release, r.from_release, r.upgrade FROM runs r
		 WHERE r.job = NEW.job AND r.build_id = NEW.build_id)
	WHERE rowid = NEW.rowid;
END;

-- A run written or changed passes its columns on to its rows.
CREATE TRIGGER runs_copy_insert AFTER INSERT ON runs
BEGIN
	UPDATE run_symptoms SET run_started_at = NEW.started_at, run_result = NEW.result, run_upgrade_started = NEW.upgrade_started,
		run_release = NEW.release, run_from_release = NEW.from_release, run_upgrade = NEW.upgrade
	WHERE job = NEW.job AND build_id = NEW.build_id;
	UPDATE run_disruptions SET run_started_at = NEW.started_at, run_result = NEW.result, run_upgrade_started = NEW.upgrade_started,
		run_release = NEW.release, run_from_release = NEW.from_release, run_upgrade = NEW.upgrade
	WHERE job = NEW.job AND build_id = NEW.build_id;
END;

CREATE TRIGGER runs_copy_update AFTER UPDATE ON runs
WHEN OLD.started_at IS NOT NEW.started_at OR OLD.result IS NOT NEW.result OR OLD.upgrade_started IS NOT NEW.upgrade_started
	OR OLD.release IS NOT NEW.release OR OLD.from_release IS NOT NEW.from_release OR OLD.upgrade IS NOT NEW.upgrade
BEGIN
	UPDATE run_symptoms SET run_started_at = NEW.started_at, run_result = NEW.result, run_upgrade_started = NEW.upgrade_started,
		run_release = NEW.release, run_from_release = NEW.from_release, run_upgrade = NEW.upgrade
	WHERE job = NEW.job AND build_id = NEW.build_id;
	UPDATE run_disruptions SET run_started_at = NEW.started_at, run_result = NEW.result, run_upgrade_started = NEW.upgrade_started,
		run_release = NEW.release, run_from_release = NEW.from_release, run_upgrade = NEW.upgrade
	WHERE job = NEW.job AND build_id = NEW.build_id;
END;

-- Rows left behind by a run deleted (without the foreign keys' cascade)
-- count nowhere, as a join with runs would not count them.
CREATE TRIGGER runs_copy_delete AFTER DELETE ON runs
BEGIN
	UPDATE run_symptoms SET run_started_at = NULL, run_result = NULL, run_upgrade_started = NULL,
		run_release = NULL, run_from_release = NULL, run_upgrade = NULL
	WHERE job = OLD.job AND build_id = OLD.build_id;
	UPDATE run_disruptions SET run_started_at = NULL, run_result = NULL, run_upgrade_started = NULL,
		run_release = NULL, run_from_release = NULL, run_upgrade = NULL
	WHERE job = OLD.job AND build_id = OLD.build_id;
END;

-- The window's symptom rows of a symptom by their run's start, with what
-- the counts group by; and the window's disruption rows by their run's
-- start, a run's rows of one backend one after the other (they are summed
-- into the run's total), with the seconds.
CREATE INDEX run_symptoms_window ON run_symptoms (symptom_id, run_started_at, run_result, run_upgrade_started,
	job, build_id, run_release, run_from_release, run_upgrade);
CREATE INDEX run_disruptions_window ON run_disruptions (run_started_at, run_result, run_upgrade_started,
	job, build_id, backend, disrupted_s, run_release, run_from_release, run_upgrade);
-- run_disruptions_run served the window by a lookup of each run: no query
-- reads it now.
DROP INDEX run_disruptions_run;
