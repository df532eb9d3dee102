-- The analysis counts every test of every finished run, by job, edge and test:
-- grouping the tests table for that sorts all of its rows (ten million for a
-- million runs), which took more than a minute. test_counts holds those
-- counts, kept exact by the writer: a batch of runs subtracts what the
-- batch's runs counted before it replaces them and adds what they count
-- after (Write and Merge), so that a run rewritten (pending then finished,
-- refetched, merged from a shard) is counted once, on its current edge.
--
-- One row per job, run edge (release, from_release and upgrade of runs, ''
-- when NULL) and test: runs where the test passed, failed or flaked (skips
-- do not count), of the finished runs only (success, failure, error), and
-- how many of those it failed and flaked. A row whose runs fall to zero is
-- deleted. WITHOUT ROWID: the key is what it is read and updated by.
CREATE TABLE test_counts (
	job          TEXT NOT NULL,
	release      TEXT NOT NULL,
	from_release TEXT NOT NULL,
	upgrade      TEXT NOT NULL,
	suite        TEXT NOT NULL,
	name         TEXT NOT NULL,
	runs         INTEGER NOT NULL CHECK (runs >= 0),
	failures     INTEGER NOT NULL CHECK (failures BETWEEN 0 AND runs),
	flakes       INTEGER NOT NULL CHECK (flakes BETWEEN 0 AND runs - failures),
	PRIMARY KEY (job, release, from_release, upgrade, suite, name)
) STRICT, WITHOUT ROWID;

-- The counts of the runs stored so far: once, on the first open by a
-- version with this table.
INSERT INTO test_counts (job, release, from_release, upgrade, suite, name, runs, failures, flakes)
SELECT r.job, coalesce(r.release, ''), coalesce(r.from_release, ''), coalesce(r.upgrade, ''), t.suite, t.name,
	count(*), count(CASE WHEN t.status = 'fail' THEN 1 END), count(CASE WHEN t.status = 'flake' THEN 1 END)
FROM runs r INDEXED BY runs_key
CROSS JOIN tests t ON t.job = r.job AND t.build_id = r.build_id
WHERE t.status IN ('pass', 'fail', 'flake') AND r.result IN ('success', 'failure', 'error')
GROUP BY 1, 2, 3, 4, 5, 6;
