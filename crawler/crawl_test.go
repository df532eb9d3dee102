package crawler

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the test reads the database as an analyst would

	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/mirror"
)

func openDB(t *testing.T) *db.DB {
	t.Helper()
	d, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "prowcrawl.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	// One reader per database for query: every connection SQLite opens
	// parses the whole schema, views included, which the race detector
	// makes cost milliseconds.
	raw, err := sql.Open("sqlite", "file:"+d.Path()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	readers.Store(d.Path(), raw)
	t.Cleanup(func() {
		readers.Delete(d.Path())
		raw.Close()
	})
	return d
}

// readers holds the read-only connection of each database openDB opened.
var readers sync.Map

// query runs SQL against the crawl's database file and returns each row as
// one string of "|"-joined columns, as sqlite3 prints them.
func query(t *testing.T, d *db.DB, q string, args ...any) []string {
	t.Helper()
	var raw *sql.DB
	if r, ok := readers.Load(d.Path()); ok {
		raw = r.(*sql.DB)
	} else {
		var err error
		if raw, err = sql.Open("sqlite", "file:"+d.Path()+"?mode=ro"); err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
	}
	rows, err := raw.QueryContext(t.Context(), q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			if v.Valid {
				parts[i] = v.String
			} else {
				parts[i] = "NULL"
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func started(ts time.Time) string { return fmt.Sprintf(`{"timestamp":%d}`, ts.Unix()) }
func finished(ts time.Time, result string) string {
	return fmt.Sprintf(`{"timestamp":%d,"passed":%v,"result":%q}`, ts.Unix(), result == "SUCCESS", result)
}

const junitWithFlake = `<testsuite name="Cluster upgrade" tests="3">
  <testcase name="[sig-cluster-lifecycle] Cluster completes upgrade" time="3000"/>
  <testcase name="[sig-arch] Check if alerts are firing during or after upgrade success" time="10"><failure message="alert fired">KubeAPIErrorBudgetBurn</failure></testcase>
  <testcase name="[sig-arch] Check if alerts are firing during or after upgrade success" time="10"/>
</testsuite>`

// TestCrawlRecordsBadInput: every bad artifact is recorded on its run and
// the crawl goes on; runs that could not be read are read again next time.
func TestCrawlRecordsBadInput(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	const job = "periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade"
	run := func(id int) string { return fmt.Sprintf("logs/%s/%d/", job, id) }
	tr := func(id int) time.Time { return t0.Add(time.Duration(id) * time.Hour) }
	files := map[string]string{
		run(101) + "started.json":  started(tr(101)),
		run(101) + "finished.json": finished(tr(101).Add(2*time.Hour), "SUCCESS"),
		run(101) + "artifacts/e2e-aws-ovn-upgrade/openshift-e2e-test/artifacts/junit/junit_upgrade_1.xml": junitWithFlake,
		run(102) + "started.json":                 started(tr(102)),
		run(102) + "finished.json":                `{"timestamp": 17`,
		run(103) + "started.json":                 started(tr(103)),
		run(103) + "finished.json":                finished(tr(103).Add(time.Hour), "failure"),
		run(103) + "artifacts/junit_operator.xml": `<testsuites><testsuite name="operator"><testcase name="Run multi-stage test pre phase"/></testsuite></testsuites>`,
		run(103) + "artifacts/e2e-aws-ovn-upgrade/openshift-e2e-test/artifacts/junit/junit_e2e_20261120-120000.xml": "<testsuite><testcase name=\"x\"\x00></testsuite",
		run(104) + "started.json":  started(tr(104)),
		run(105) + "build-log.txt": "no metadata at all",
		run(106) + "started.json":  started(tr(106)),
		run(106) + "finished.json": finished(tr(106).Add(time.Hour), "FAILURE"),
		run(106) + "artifacts/e2e-aws-ovn-upgrade/gather-extra/artifacts/clusterversion.json": `{"kind":"List","items":[{"metadata":{"name":"version"},"status":{"history":[
			{"state":"Partial","version":"4.14.0-0.ci-2026-11-20-000000","startedTime":"2026-11-20T10:00:00Z","completionTime":null},
			{"state":"Completed","version":"4.13.12","startedTime":"2026-11-20T09:00:00Z","completionTime":"2026-11-20T09:40:00Z"}]}}]}`,
		"logs/periodic-ci-openshift-release-master-nightly-4.14-e2e-aws-ovn/1/started.json": started(t0),
	}
	dir := writeTree(t, files)
	src, err := mirror.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := openDB(t)
	cfg := Config{Jobs: []*regexp.Regexp{regexp.MustCompile("upgrade")}, Since: t0.AddDate(0, 0, -1)}

	sum, err := New(src, d, cfg).Run(t.Context())
	if !errors.Is(err, ErrRunsFailed) {
		t.Fatalf("crawl error = %v, want ErrRunsFailed", err)
	}
	if sum.Jobs != 1 || sum.New != 6 || sum.Pending != 3 || sum.Errors != 2 {
		t.Errorf("summary %+v, want 1 job, 6 new runs, 3 pending (2 unreadable), 2 errors", sum)
	}
	got := query(t, d, `SELECT build_id, result, fetch_status, coalesce(upgrade_state, ''), coalesce(from_version, ''),
		(SELECT count(*) FROM tests t WHERE t.job = r.job AND t.build_id = r.build_id),
		(SELECT group_concat(kind, ',') FROM run_errors e WHERE e.job = r.job AND e.build_id = r.build_id)
		FROM runs r ORDER BY build_id`)
	want := []string{
		"101|success|complete|||2|NULL",
		"102|pending|error|||0|parse",
		"103|failure|complete|||1|parse",
		"104|pending|complete|||0|NULL",
		"105|pending|error|||0|NULL",
		"106|failure|complete|Partial|4.13.12|0|NULL",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if flakes := query(t, d, `SELECT name FROM tests WHERE status = 'flake'`); len(flakes) != 1 || !strings.Contains(flakes[0], "alerts are firing") {
		t.Errorf("flakes = %v, want the alerts test", flakes)
	}
	if msg := query(t, d, `SELECT fetch_error FROM runs WHERE build_id = 105`); len(msg) != 1 || !strings.Contains(msg[0], "started.json") {
		t.Errorf("fetch_error of a run without started.json = %v", msg)
	}

	// The next crawl reads the pending and unreadable runs again, and only them.
	sum, _ = New(src, d, Config{Jobs: cfg.Jobs}).Run(t.Context())
	if sum.New != 0 || sum.Updated != 3 {
		t.Errorf("second crawl %+v, want 0 new and 3 updated (102, 104, 105)", sum)
	}
}

// cancelAfter cancels the crawl once n runs are stored.
type cancelAfter struct {
	n      int
	done   int
	cancel func()
}

func (c *cancelAfter) Start()             {}
func (c *cancelAfter) Jobs(int)           {}
func (c *cancelAfter) JobListed(int)      {}
func (c *cancelAfter) ListingDone()       {}
func (c *cancelAfter) Wait(string) func() { return func() {} }
func (c *cancelAfter) Finish(error)       {}
func (c *cancelAfter) Add(n int) {
	c.done += n
	if c.done >= c.n {
		c.cancel()
	}
}

// TestCrawlInterruptedThenResumed: an interrupted crawl stores whole runs
// only, and the next crawl completes the same database as an uninterrupted
// one.
func TestCrawlInterruptedThenResumed(t *testing.T) {
	t.Parallel()
	src, err := mirror.New(sampleDir)
	if err != nil {
		t.Fatal(err)
	}
	clean := cleanSample(t)

	d := openDB(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	cfg := shortSample(sampleConfig())
	cfg.Concurrency = 2
	cfg.Progress = &cancelAfter{n: 1, cancel: cancel}
	sum, err := New(src, d, cfg).Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted crawl: err %v, want context.Canceled", err)
	}
	stored := query(t, d, `SELECT count(*) FROM runs`)[0]
	if stored == "0" || sum.New == 0 || fmt.Sprint(sum.New) != stored {
		t.Errorf("interrupted crawl stored %s runs and reported %d", stored, sum.New)
	}
	if got := query(t, d, `SELECT status FROM crawls`); len(got) != 1 || got[0] != "interrupted" {
		t.Errorf("crawl log %v, want one interrupted crawl", got)
	}
	// Every stored run is whole: its tests are all there.
	if diff := query(t, d, `SELECT r.job, r.build_id FROM runs r WHERE r.result <> 'pending' AND NOT EXISTS
		(SELECT 1 FROM tests t WHERE t.job = r.job AND t.build_id = r.build_id) AND r.result <> 'aborted'`); len(diff) > 0 {
		t.Errorf("runs stored without their tests: %v", diff)
	}

	cfg.Progress = nil
	if _, err := New(src, d, cfg).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if b := dumpDB(t, d); clean != b {
		t.Error("the resumed crawl's database differs from an uninterrupted crawl's")
	}
}
