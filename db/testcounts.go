package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/openshift-eng/prowcrawl"
)

// test_counts (migration 0004) holds what the analysis counts of the tests,
// by job, run edge and test, so that an analysis reads a few rows per test
// instead of grouping every row of tests. The single writer keeps it exact:
// before a batch replaces its runs it subtracts what those runs counted (a
// set-based statement over the batch's run keys, which finds nothing for
// new runs), and after it adds what they count now. So a run written twice
// in a batch, or rewritten with another result or edge, is counted once, as
// it is stored at the end.

// testCountsOf is the SELECT of what the runs that keys lists (a FROM item,
// alias k, with columns job and build_id, each run once) count in
// test_counts: one row per job, edge and test, of the finished runs.
func testCountsOf(keys string) string {
	return `SELECT r.job AS job, coalesce(r.release, '') AS release, coalesce(r.from_release, '') AS from_release,
	coalesce(r.upgrade, '') AS upgrade, t.suite AS suite, t.name AS name,
	count(*) AS runs, count(CASE WHEN t.status = 'fail' THEN 1 END) AS failures,
	count(CASE WHEN t.status = 'flake' THEN 1 END) AS flakes
FROM ` + keys + `
CROSS JOIN main.runs AS r INDEXED BY runs_key ON r.job = k.job AND r.build_id = k.build_id
CROSS JOIN main.tests AS t ON t.job = r.job AND t.build_id = r.build_id
WHERE t.status IN ('pass', 'fail', 'flake') AND ` + countedRun + `
GROUP BY 1, 2, 3, 4, 5, 6`
}

// addTestCounts adds what the runs of keys count to test_counts.
func addTestCounts(keys string) string {
	return `INSERT INTO main.test_counts (job, release, from_release, upgrade, suite, name, runs, failures, flakes)
` + testCountsOf(keys) + `
ON CONFLICT (job, release, from_release, upgrade, suite, name) DO UPDATE SET
	runs = runs + excluded.runs,
	failures = failures + excluded.failures,
	flakes = flakes + excluded.flakes`
}

// subtractTestCounts takes what the runs of keys count out of test_counts.
func subtractTestCounts(keys string) string {
	return `UPDATE main.test_counts AS c SET
	runs = c.runs - d.runs,
	failures = c.failures - d.failures,
	flakes = c.flakes - d.flakes
FROM (` + testCountsOf(keys) + `) AS d
WHERE c.job = d.job AND c.release = d.release AND c.from_release = d.from_release AND c.upgrade = d.upgrade
	AND c.suite = d.suite AND c.name = d.name`
}

// dropZeroTestCounts deletes the rows of the jobs of keys that no run
// counts any more.
func dropZeroTestCounts(keys string) string {
	return `DELETE FROM main.test_counts WHERE runs = 0 AND job IN (SELECT k.job FROM ` + keys + `)`
}

// batchKeys is the FROM item of the run keys of a Write, passed as a JSON
// array of [job, build id] pairs in parameter ?1.
const batchKeys = `(SELECT j.value ->> 0 AS job, j.value ->> 1 AS build_id FROM json_each(?1) AS j) AS k`

// runKeys is the JSON of the distinct run keys of recs, for batchKeys.
func runKeys(recs []prowcrawl.Record) (string, error) {
	type key struct {
		job   string
		build int64
	}
	seen := make(map[key]bool, len(recs))
	pairs := make([][2]any, 0, len(recs))
	for i := range recs {
		k := key{recs[i].Run.Job, recs[i].Run.BuildID}
		if k.job == "" {
			k.job = recs[i].Job.Name
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		pairs = append(pairs, [2]any{k.job, k.build})
	}
	b, err := json.Marshal(pairs)
	return string(b), err
}

// execer is a transaction, or anything else that runs statements in one.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// testCountsBefore subtracts what the runs of keys count now, before they
// are replaced. It says whether any count changed, that is, whether
// testCountsAfter must look for rows fallen to zero.
func testCountsBefore(ctx context.Context, tx execer, keys string, args ...any) (bool, error) {
	res, err := tx.ExecContext(ctx, subtractTestCounts(keys), args...)
	if err != nil {
		return false, fmt.Errorf("test counts: subtract: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("test counts: subtract: %w", err)
	}
	return n > 0, nil
}

// testCountsAfter adds what the runs of keys count once they are replaced,
// and, when subtracted is true, deletes the rows no run counts any more.
func testCountsAfter(ctx context.Context, tx execer, subtracted bool, keys string, args ...any) error {
	if _, err := tx.ExecContext(ctx, addTestCounts(keys), args...); err != nil {
		return fmt.Errorf("test counts: add: %w", err)
	}
	return dropZeros(ctx, tx, subtracted, keys, args...)
}

// dropZeros deletes the rows of the jobs of keys that no run counts any
// more, when subtracted says that some count went down.
func dropZeros(ctx context.Context, tx execer, subtracted bool, keys string, args ...any) error {
	if !subtracted {
		return nil
	}
	if _, err := tx.ExecContext(ctx, dropZeroTestCounts(keys), args...); err != nil {
		return fmt.Errorf("test counts: drop zeros: %w", err)
	}
	return nil
}

// countKey is a row's key in test_counts; testCount its counts.
type countKey struct{ job, release, fromRelease, upgrade, suite, name string }
type testCount struct{ runs, failures, flakes int }

// countConflict adds to a row of test_counts. (countRows is the INSERT.)
const countConflict = `ON CONFLICT (job, release, from_release, upgrade, suite, name) DO UPDATE SET
	runs = runs + excluded.runs,
	failures = failures + excluded.failures,
	flakes = flakes + excluded.flakes`

// batchTestCounts is what the runs of a Write count in test_counts once it
// is done, computed from the records rather than read back from tests (a
// batch of 100 runs of 300 tests adds 300 rows, not 30,000 read and
// sorted): the last record of each run is the one stored, and a test listed
// twice in a run is merged as testConflict merges it.
func batchTestCounts(recs []prowcrawl.Record) map[countKey]testCount {
	type runKey struct {
		job   string
		build int64
	}
	last := make(map[runKey]int, len(recs))
	for i := range recs {
		job := recs[i].Run.Job
		if job == "" {
			job = recs[i].Job.Name
		}
		last[runKey{job, recs[i].Run.BuildID}] = i
	}
	out := make(map[countKey]testCount)
	status := make(map[[2]string]string)
	for k, i := range last {
		r := &recs[i].Run
		if !prowcrawl.Finished(r.Result) {
			continue // only finished runs count
		}
		clear(status)
		for _, t := range recs[i].Tests {
			st := [2]string{t.Suite, t.Name}
			old, ok := status[st]
			switch {
			case !ok || old == "skip":
				status[st] = t.Status
			case old == t.Status, t.Status == "skip":
			default:
				status[st] = "flake"
			}
		}
		for st, s := range status {
			c := testCount{runs: 1}
			switch s {
			case "fail":
				c.failures = 1
			case "flake":
				c.flakes = 1
			case "pass":
			default:
				continue // skips do not count
			}
			ck := countKey{k.job, r.Release, r.FromRelease, r.Upgrade, st[0], st[1]}
			sum := out[ck]
			sum.runs += c.runs
			sum.failures += c.failures
			sum.flakes += c.flakes
			out[ck] = sum
		}
	}
	return out
}
