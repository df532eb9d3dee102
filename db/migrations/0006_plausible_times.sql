-- Times that cannot be a run's, stored by older versions: a started.json in
-- milliseconds was stored as the year 58829, which no reader can parse, and a run
-- dated 2099 moved the end of the analysis' windows. A time is kept when it is
-- RFC 3339 in UTC to the second, a real date, from 2014 to a day past the clock,
-- and a run's end is not before its start (the checks the crawler makes since).
-- A run with any other time is taken out of the rates (result 'pending', its test
-- counts subtracted) and marked to be read again (fetch_status 'error'), with the
-- reason in run_errors; the next crawl reads it with the checks.
CREATE TEMP TABLE implausible AS
SELECT job, build_id, started_at, finished_at FROM runs
WHERE NOT (started_at IS NULL OR (typeof(started_at) = 'text' AND started_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' AND strftime('%Y-%m-%dT%H:%M:%SZ', started_at) = started_at AND started_at >= '2014-01-01T00:00:00Z' AND started_at <= strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '+1 day'))) OR NOT (finished_at IS NULL OR (typeof(finished_at) = 'text' AND finished_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' AND strftime('%Y-%m-%dT%H:%M:%SZ', finished_at) = finished_at AND finished_at >= '2014-01-01T00:00:00Z' AND finished_at <= strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '+1 day')))
   OR (typeof(started_at) = 'text' AND typeof(finished_at) = 'text' AND finished_at < started_at);

UPDATE test_counts AS c SET
	runs = c.runs - d.runs,
	failures = c.failures - d.failures,
	flakes = c.flakes - d.flakes
FROM (
	SELECT r.job AS job, coalesce(r.release, '') AS release, coalesce(r.from_release, '') AS from_release,
		coalesce(r.upgrade, '') AS upgrade, t.suite AS suite, t.name AS name,
		count(*) AS runs, count(CASE WHEN t.status = 'fail' THEN 1 END) AS failures,
		count(CASE WHEN t.status = 'flake' THEN 1 END) AS flakes
	FROM temp.implausible k
	JOIN runs r ON r.job = k.job AND r.build_id = k.build_id
	JOIN tests t ON t.job = r.job AND t.build_id = r.build_id
	WHERE t.status IN ('pass', 'fail', 'flake') AND r.result IN ('success', 'failure', 'error')
	GROUP BY 1, 2, 3, 4, 5, 6
) AS d
WHERE c.job = d.job AND c.release = d.release AND c.from_release = d.from_release AND c.upgrade = d.upgrade
	AND c.suite = d.suite AND c.name = d.name;
DELETE FROM test_counts WHERE runs = 0;

INSERT INTO run_errors (job, build_id, object, kind, message)
SELECT r.job, r.build_id, r.path || '/started.json', 'parse',
	'implausible time stored by an older version (started ' || coalesce(quote(k.started_at), 'NULL') ||
	', finished ' || coalesce(quote(k.finished_at), 'NULL') || '); read again'
FROM temp.implausible k JOIN runs r ON r.job = k.job AND r.build_id = k.build_id;

UPDATE runs SET
	started_at = CASE WHEN (started_at IS NULL OR (typeof(started_at) = 'text' AND started_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' AND strftime('%Y-%m-%dT%H:%M:%SZ', started_at) = started_at AND started_at >= '2014-01-01T00:00:00Z' AND started_at <= strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '+1 day'))) THEN started_at END,
	finished_at = NULL,
	result = 'pending',
	fetch_status = 'error',
	fetch_error = 'implausible time stored by an older version; read again'
WHERE (job, build_id) IN (SELECT job, build_id FROM temp.implausible);

DROP TABLE temp.implausible;

UPDATE run_symptoms SET at = NULL WHERE NOT (at IS NULL OR (typeof(at) = 'text' AND at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' AND strftime('%Y-%m-%dT%H:%M:%SZ', at) = at AND at >= '2014-01-01T00:00:00Z' AND at <= strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '+1 day')));

-- A cursor past any id Prow can have issued yet (a snowflake id dated more than a
-- day ahead, 9223372036854775807 from a shard) would stop its job for good: it
-- goes back to the job's newest stored run, or away when there is none.
UPDATE crawl_cursors SET started_at = NULL WHERE NOT (started_at IS NULL OR (typeof(started_at) = 'text' AND started_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' AND strftime('%Y-%m-%dT%H:%M:%SZ', started_at) = started_at AND started_at >= '2014-01-01T00:00:00Z' AND started_at <= strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '+1 day')));
UPDATE crawl_cursors AS c SET
	build_id = (SELECT max(r.build_id) FROM runs r WHERE r.bucket = c.bucket AND r.job = c.job),
	started_at = NULL
WHERE c.build_id >= 1000000000000000000
  AND (c.build_id >> 22) + 1288834974657 > unixepoch('now', '+1 day') * 1000
  AND EXISTS (SELECT 1 FROM runs r WHERE r.bucket = c.bucket AND r.job = c.job);
DELETE FROM crawl_cursors
WHERE build_id >= 1000000000000000000
  AND (build_id >> 22) + 1288834974657 > unixepoch('now', '+1 day') * 1000;
