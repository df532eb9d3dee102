package db

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// countedTests is what test_counts must hold: the grouping of every test of
// every finished run, straight from tests, as the analysis computed it before
// the table existed.
const countedTests = `SELECT r.job || '|' || coalesce(r.release, '') || '|' || coalesce(r.from_release, '') || '|' ||
	coalesce(r.upgrade, '') || '|' || t.suite || '|' || t.name || '|' || count(*) || '|' ||
	count(CASE WHEN t.status = 'fail' THEN 1 END) || '|' || count(CASE WHEN t.status = 'flake' THEN 1 END)
FROM runs r JOIN tests t ON t.job = r.job AND t.build_id = r.build_id
WHERE t.status IN ('pass', 'fail', 'flake') AND r.result IN ('success', 'failure', 'error')
GROUP BY r.job, coalesce(r.release, ''), coalesce(r.from_release, ''), coalesce(r.upgrade, ''), t.suite, t.name
ORDER BY 1`

const storedCounts = `SELECT job || '|' || release || '|' || from_release || '|' || upgrade || '|' || suite || '|' ||
	name || '|' || runs || '|' || failures || '|' || flakes
FROM test_counts ORDER BY 1`

// checkTestCounts fails unless test_counts equals the counts of tests, with
// no row at zero.
func checkTestCounts(t *testing.T, d *DB, when string) {
	t.Helper()
	want, got := queryStrings(t, d.db, countedTests), queryStrings(t, d.db, storedCounts)
	if !slices.Equal(got, want) {
		t.Errorf("%s: test_counts\n  %s\nwant the counts of tests\n  %s", when, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// ctRun is a run of job on an edge with tests given as "suite/name=status".
func ctRun(job string, build int64, result, from, to, kind string, tests ...string) prowcrawl.Record {
	r := testRecord(build, 0)
	r.Job.Name, r.Run.Job = job, job
	r.Run.Result, r.Run.FromRelease, r.Run.Release, r.Run.Upgrade = prowcrawl.Result(result), from, to, kind
	for _, s := range tests {
		st, status, _ := strings.Cut(s, "=")
		suite, name, _ := strings.Cut(st, "/")
		r.Tests = append(r.Tests, prowcrawl.Test{Suite: suite, Name: name, Status: status})
	}
	return r
}

func TestTestCountsFollowWrites(t *testing.T) {
	d := openTest(t)
	const a, b = "job-a-upgrade", "job-b-upgrade"
	steps := []struct {
		what string
		recs []prowcrawl.Record
		rows int // rows of test_counts after the step
	}{
		{"new runs", []prowcrawl.Record{
			ctRun(a, 1, "success", "4.13", "4.14", "minor", "s/x=pass", "s/y=flake", "s/z=skip"),
			ctRun(a, 2, "failure", "4.13", "4.14", "minor", "s/x=fail", "s/y=pass"),
			ctRun(a, 3, "pending", "4.13", "4.14", "minor", "s/x=fail"),
			ctRun(b, 4, "error", "", "", "", "s/x=pass", "t/x=fail"),
		}, 4},
		{"pending run finishes", []prowcrawl.Record{
			ctRun(a, 3, "failure", "4.13", "4.14", "minor", "s/x=fail", "s/w=pass"),
		}, 5},
		{"refetch changes the outcome", []prowcrawl.Record{
			ctRun(a, 1, "success", "4.13", "4.14", "minor", "s/x=pass", "s/y=pass"),
		}, 5},
		{"refetch moves the run to another edge, and drops a test", []prowcrawl.Record{
			ctRun(a, 2, "failure", "4.14", "4.14", "micro", "s/x=fail"),
		}, 6},
		{"a run no longer counts", []prowcrawl.Record{
			ctRun(b, 4, "aborted", "", "", "", "s/x=pass", "t/x=fail"),
		}, 4},
		{"a run written twice in one batch, and a test twice in a run", []prowcrawl.Record{
			ctRun(b, 5, "success", "4.15", "4.15", "micro", "s/x=pass"),
			ctRun(b, 5, "failure", "4.15", "4.15", "micro", "s/x=pass", "s/x=fail", "s/v=skip"),
		}, 5},
		{"the same batch again", []prowcrawl.Record{
			ctRun(b, 5, "success", "4.15", "4.15", "micro", "s/x=pass"),
			ctRun(b, 5, "failure", "4.15", "4.15", "micro", "s/x=pass", "s/x=fail", "s/v=skip"),
		}, 5},
		{"a run with a 19-digit build id", []prowcrawl.Record{
			ctRun(b, 1700000000000979322, "failure", "4.15", "4.15", "micro", "s/x=fail"),
		}, 5},
		{"the run with a 19-digit build id no longer counts", []prowcrawl.Record{
			ctRun(b, 1700000000000979322, "pending", "4.15", "4.15", "micro", "s/x=fail"),
		}, 5},
		{"every run of a job leaves its edge", []prowcrawl.Record{
			ctRun(a, 1, "aborted", "4.13", "4.14", "minor"),
			ctRun(a, 3, "success", "4.14", "4.14", "micro", "s/w=flake"),
		}, 3},
	}
	for _, s := range steps {
		write(t, d, s.recs)
		checkTestCounts(t, d, s.what)
		if n := count(t, d, "test_counts"); n != s.rows {
			t.Errorf("%s: %d rows in test_counts, want %d", s.what, n, s.rows)
		}
	}
	// What the end state holds, spelled out: run 2 failed x on 4.14 micro,
	// run 3 flaked w there; run 5 flaked x on 4.15 micro.
	want := []string{
		a + "|4.14|4.14|micro|s|w|1|0|1",
		a + "|4.14|4.14|micro|s|x|1|1|0",
		b + "|4.15|4.15|micro|s|x|1|0|1",
	}
	if got := queryStrings(t, d.db, storedCounts); !slices.Equal(got, want) {
		t.Errorf("test_counts = %q, want %q", got, want)
	}

	// A batch that fails leaves the counts as they were.
	bad := []prowcrawl.Record{ctRun(a, 6, "success", "4.14", "4.14", "micro", "s/x=pass"), ctRun(a, 7, "success", "", "", "")}
	bad[1].Run.BuildID = 0
	if err := d.Write(t.Context(), bad, nil); err == nil {
		t.Fatal("a batch with a bad run was written")
	}
	if got := queryStrings(t, d.db, storedCounts); !slices.Equal(got, want) {
		t.Errorf("after a failed write, test_counts = %q, want %q", got, want)
	}
}

// TestTestCountsFollowMerges merges shards with overlapping runs, the
// counts staying those of the merged tests.
func TestTestCountsFollowMerges(t *testing.T) {
	dir := t.TempDir()
	const job = "job-a-upgrade"
	shard := func(name string, recs ...prowcrawl.Record) string {
		p := filepath.Join(dir, name)
		d := openAt(t, p)
		write(t, d, recs)
		checkTestCounts(t, d, name)
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		return p
	}
	finished := func(r prowcrawl.Record) prowcrawl.Record {
		r.Run.CrawledAt = crawled.Add(time.Hour)
		return r
	}
	a := shard("a.db",
		ctRun(job, 1, "success", "4.13", "4.14", "minor", "s/x=pass", "s/y=flake"),
		ctRun(job, 2, "pending", "4.13", "4.14", "minor", "s/x=fail"),
		ctRun(job, 3, "failure", "4.13", "4.14", "minor", "s/x=fail"))
	b := shard("b.db",
		finished(ctRun(job, 2, "failure", "4.13", "4.14", "minor", "s/x=fail", "s/y=pass")),
		// Read later, on another edge: replaces a's run 3.
		finished(ctRun(job, 3, "success", "4.14", "4.14", "micro", "s/x=pass")),
		ctRun(job, 4, "error", "4.14", "4.14", "micro", "s/x=flake"))

	out := openAt(t, filepath.Join(dir, "out.db"))
	// Run 1 crawled before a's: a's replaces it.
	early := ctRun(job, 1, "failure", "4.13", "4.14", "minor", "s/z=fail")
	early.Run.CrawledAt = crawled.Add(-time.Hour)
	write(t, out, []prowcrawl.Record{early})
	checkTestCounts(t, out, "before the merges")
	for _, p := range []string{a, b, a, b} {
		if _, err := out.Merge(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		checkTestCounts(t, out, "merge of "+filepath.Base(p))
	}
	want := []string{
		job + "|4.14|4.13|minor|s|x|2|1|0",
		job + "|4.14|4.13|minor|s|y|2|0|1",
		job + "|4.14|4.14|micro|s|x|2|0|1",
	}
	if got := queryStrings(t, out.db, storedCounts); !slices.Equal(got, want) {
		t.Errorf("test_counts after the merges = %q, want %q", got, want)
	}
}

// TestTestCountsMigration opens a database whose runs were stored before
// test_counts existed: the migration counts them.
func TestTestCountsMigration(t *testing.T) {
	src := openAt(t, filepath.Join(t.TempDir(), "src.db"))
	var recs []prowcrawl.Record
	for i := range 20 {
		status := []string{"pass", "fail", "flake", "skip"}[i%4]
		result := []string{"success", "failure", "aborted", "error", "pending"}[i%5]
		recs = append(recs, ctRun("job-a-upgrade", int64(i+1), result, "4.13", fmt.Sprint("4.1", 4+i%2), "minor",
			"s/x="+status, "s/y=pass"))
	}
	write(t, src, recs)
	// The schema before 0004, with the runs kept.
	path := filepath.Join(t.TempDir(), "old.db")
	oldDatabase(t, src, path, 3)
	d := openAt(t, path)
	checkTestCounts(t, d, "after the migration")
	if n := count(t, d, "test_counts"); n != 4 {
		t.Errorf("%d rows in test_counts, want 4 (two tests on two edges)", n)
	}
}

// TestTestCountsPlans checks that keeping the counts reads only the batch's
// runs and tests, by their keys.
func TestTestCountsPlans(t *testing.T) {
	d := openTest(t)
	for _, q := range []string{
		strings.ReplaceAll(addTestCounts(batchKeys), "?1", "'[]'"),
		strings.ReplaceAll(subtractTestCounts(batchKeys), "?1", "'[]'"),
		strings.ReplaceAll(dropZeroTestCounts(batchKeys), "?1", "'[]'"),
	} {
		plan := queryPlan(t, d, q)
		for _, want := range []string{"SEARCH r USING COVERING INDEX runs_key (job=? AND build_id=?", "SEARCH t USING INDEX sqlite_autoindex_tests_1 (job=? AND build_id=?)"} {
			if strings.HasPrefix(q, "DELETE") {
				want = "test_counts USING PRIMARY KEY (job=?)"
			}
			if !strings.Contains(plan, want) {
				t.Errorf("plan without %s:\n%s\n%s", want, plan, q)
			}
		}
		for _, line := range strings.Split(plan, "\n") {
			if strings.HasPrefix(line, "SCAN") && !strings.HasPrefix(line, "SCAN j") && !strings.HasPrefix(line, "SCAN d") &&
				!strings.HasPrefix(line, "SCAN k") {
				t.Errorf("plan reads a table whole: %s\n%s", line, plan)
			}
		}
	}
}

// TestTestCountsMergeRepeatedTests checks that the counts a Write adds from
// its records merge a test listed several times in a run as tests stores it.
func TestTestCountsMergeRepeatedTests(t *testing.T) {
	d := openTest(t)
	var tests []string
	for i, statuses := range [][]string{
		{"pass", "pass"}, {"fail", "pass"}, {"pass", "fail"}, {"fail", "fail"}, {"skip", "fail"}, {"pass", "skip"},
		{"flake", "pass"}, {"fail", "pass", "fail"}, {"skip", "skip"}, {"skip", "flake", "skip"}, {"fail", "skip", "pass"},
	} {
		for _, s := range statuses {
			tests = append(tests, fmt.Sprintf("s/t%d=%s", i, s))
		}
	}
	write(t, d, []prowcrawl.Record{ctRun("job-a-upgrade", 1, "failure", "4.13", "4.14", "minor", tests...)})
	checkTestCounts(t, d, "repeated tests")
	got := queryStrings(t, d.db, `SELECT name || ' ' || failures || ' ' || flakes FROM test_counts ORDER BY name`)
	want := []string{"t0 0 0", "t1 0 1", "t10 0 1", "t2 0 1", "t3 1 0", "t4 1 0", "t5 0 0", "t6 0 1", "t7 0 1", "t9 0 1"}
	if !slices.Equal(got, want) {
		t.Errorf("counts %q, want %q", got, want)
	}
}
