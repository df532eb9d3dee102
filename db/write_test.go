package db

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

const bucket = "test-platform-results"

var (
	started  = time.Date(2026, 1, 12, 20, 58, 46, 0, time.UTC)
	finished = started.Add(2 * time.Hour)
	crawled  = time.Date(2026, 1, 13, 3, 0, 0, 0, time.UTC)
)

const jobName = "periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade"

func testJob() prowcrawl.Job {
	return prowcrawl.Job{Name: jobName, Type: "periodic", Release: "4.14", FromRelease: "4.13", Upgrade: "minor",
		Platform: "aws", Network: "ovn", Arch: "amd64"}
}

// testRecord is a finished, completely fetched run of testJob with tests.
func testRecord(build int64, tests int) prowcrawl.Record {
	path := fmt.Sprintf("logs/%s/%d", jobName, build)
	r := prowcrawl.Record{
		Job: testJob(),
		Run: prowcrawl.Run{
			Job: jobName, BuildID: build, Bucket: bucket, Path: path,
			URL:       "https://prow.ci.openshift.org/view/gs/" + bucket + "/" + path,
			StartedAt: started, FinishedAt: finished, Result: "failure",
			Release: "4.14", FromRelease: "4.13", Upgrade: "minor",
			FromVersion: "4.13.0-0.ci-2026-01-12-120000", ToVersion: "4.14.0-0.ci-2026-01-12-130000",
			UpgradeState: "Partial", Tag: "4.14.0-0.ci-2026-01-12-130000", FromTag: "4.13.0-0.ci-2026-01-12-120000",
			FetchStatus: "complete", ObjectsRead: 42, BytesRead: 1 << 20, CrawledAt: crawled,
		},
	}
	for i := range tests {
		status, msg := "pass", ""
		if i%50 == 1 {
			status, msg = "fail", "fail [github.com/openshift/origin/test/e2e/upgrade.go:203]: cluster did not complete upgrade"
		}
		r.Tests = append(r.Tests, prowcrawl.Test{Suite: "openshift-tests", Name: fmt.Sprintf("[sig-test] case %d should work", i),
			Status: status, DurationS: float64(i) / 10, Message: msg})
	}
	return r
}

func write(t testing.TB, d *DB, recs []prowcrawl.Record, cursors ...prowcrawl.Cursor) {
	t.Helper()
	if err := d.Write(t.Context(), recs, cursors); err != nil {
		t.Fatal(err)
	}
}

func count(t testing.TB, d *DB, table string) int {
	t.Helper()
	var n int
	if err := d.db.QueryRowContext(t.Context(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// dump returns every row of the run tables as text, to compare two states.
func dump(t testing.TB, d *DB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for table, order := range map[string]string{
		"jobs": "name", "runs": "job, build_id", "tests": "job, build_id, suite, name",
		"run_errors": "job, build_id, object", "run_symptoms": "job, build_id, symptom_id",
		"crawl_cursors": "bucket, job",
	} {
		out[table] = tableRows(t, d, table, order)
	}
	return out
}

// tableRows returns every row of table in order, each its columns quoted and
// joined by '|' (updated_at left out).
func tableRows(t testing.TB, d *DB, table, order string) []string {
	t.Helper()
	cols := queryStrings(t, d.db, `SELECT name FROM pragma_table_info(?) WHERE name <> 'updated_at'`, table)
	for i, c := range cols {
		cols[i] = "quote(" + c + ")"
	}
	return queryStrings(t, d.db, "SELECT "+strings.Join(cols, " || '|' || ")+" FROM "+table+" ORDER BY "+order)
}

func TestWriteRoundTrip(t *testing.T) {
	d := openTest(t)
	done := testRecord(100, 3)
	pending := testRecord(101, 0)
	pending.Run.Result, pending.Run.FinishedAt = "pending", time.Time{}
	partial := testRecord(102, 1)
	partial.Run.FetchStatus, partial.Run.FetchError = "partial", "read artifacts/junit.xml: unexpected EOF"
	partial.Run.Pull = 28431
	partial.Errors = []prowcrawl.RunError{{Object: "artifacts/junit.xml", Kind: "read", Message: "unexpected EOF"}}
	other := testRecord(7, 0)
	other.Job.Name, other.Run.Job = "release-openshift-origin-installer-e2e-aws-upgrade", ""
	other.Run.Bucket = "origin-ci-test"
	write(t, d, []prowcrawl.Record{done, pending, partial, other},
		prowcrawl.Cursor{Bucket: bucket, Job: jobName, BuildID: 102, StartedAt: started})

	states, err := d.RunStates(t.Context(), bucket, jobName)
	if err != nil {
		t.Fatal(err)
	}
	wantStates := map[int64]RunState{
		100: {BuildID: 100, Result: "failure", FetchStatus: "complete", StartedAt: started},
		101: {BuildID: 101, Result: "pending", FetchStatus: "complete", StartedAt: started},
		102: {BuildID: 102, Result: "failure", FetchStatus: "partial", StartedAt: started},
	}
	if !reflect.DeepEqual(states, wantStates) {
		t.Errorf("RunStates\n got %+v\nwant %+v", states, wantStates)
	}

	revisit, err := d.Revisit(t.Context(), bucket, jobName, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []prowcrawl.Run{pending.Run, partial.Run}; !reflect.DeepEqual(revisit, want) {
		t.Errorf("Revisit\n got %+v\nwant %+v", revisit, want)
	}

	c, ok, err := d.Cursor(t.Context(), bucket, jobName)
	if err != nil || !ok {
		t.Fatalf("Cursor = %v, %v", ok, err)
	}
	if want := (prowcrawl.Cursor{Bucket: bucket, Job: jobName, BuildID: 102, StartedAt: started}); c != want {
		t.Errorf("Cursor = %+v, want %+v", c, want)
	}
	if _, ok, err := d.Cursor(t.Context(), "origin-ci-test", jobName); ok || err != nil {
		t.Errorf("Cursor of an uncrawled job = %v, %v; want false, nil", ok, err)
	}

	for b, want := range map[string][]string{bucket: {jobName}, "origin-ci-test": {other.Job.Name}, "none": nil} {
		jobs, err := d.Jobs(t.Context(), b)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(jobs, want) {
			t.Errorf("Jobs(%s) = %v, want %v", b, jobs, want)
		}
	}

	gotTests := queryStrings(t, d.db, `SELECT name || '|' || status || '|' || duration_s || '|' || coalesce(message, 'NULL')
FROM tests WHERE build_id = 100 ORDER BY name`)
	var wantTests []string
	for _, tt := range done.Tests {
		msg := tt.Message
		if msg == "" {
			msg = "NULL"
		}
		wantTests = append(wantTests, fmt.Sprintf("%s|%s|%g|%s", tt.Name, tt.Status, tt.DurationS, msg))
	}
	slices.Sort(wantTests)
	// SQLite prints a REAL zero as 0.0.
	wantTests[0] = strings.Replace(wantTests[0], "|0|", "|0.0|", 1)
	if !slices.Equal(gotTests, wantTests) {
		t.Errorf("tests\n got %q\nwant %q", gotTests, wantTests)
	}
}

func TestWriteIsIdempotent(t *testing.T) {
	d := openTest(t)
	recs := []prowcrawl.Record{testRecord(100, 5), testRecord(101, 2)}
	recs[0].Errors = []prowcrawl.RunError{{Object: "artifacts/e2e/clusterversion.json", Kind: "parse", Message: "unexpected end of JSON input"}}
	cursor := prowcrawl.Cursor{Bucket: bucket, Job: jobName, BuildID: 101, StartedAt: started}
	write(t, d, recs, cursor)
	first := dump(t, d)
	write(t, d, recs, cursor)
	if second := dump(t, d); !reflect.DeepEqual(first, second) {
		t.Errorf("second write changed rows\nfirst  %v\nsecond %v", first, second)
	}
	for table, want := range map[string]int{"jobs": 1, "runs": 2, "tests": 7, "run_errors": 1, "crawl_cursors": 1} {
		if got := count(t, d, table); got != want {
			t.Errorf("%s has %d rows, want %d", table, got, want)
		}
	}
}

func TestWriteReplacesRunRows(t *testing.T) {
	d := openTest(t)
	rec := testRecord(100, 10)
	rec.Errors = []prowcrawl.RunError{{Object: "a", Kind: "read", Message: "x"}, {Object: "b", Kind: "size", Message: "y"}}
	write(t, d, []prowcrawl.Record{rec, testRecord(101, 10)})
	if _, err := d.db.ExecContext(t.Context(), `INSERT INTO symptoms (id, title, source) VALUES ('upgrade-incomplete', 'Upgrade incomplete', 'builtin');
INSERT INTO run_symptoms (job, build_id, symptom_id, hits) VALUES (?, 100, 'upgrade-incomplete', 1), (?, 101, 'upgrade-incomplete', 1)`,
		jobName, jobName); err != nil {
		t.Fatal(err)
	}

	again := testRecord(100, 2)
	again.Run.Result = "success"
	write(t, d, []prowcrawl.Record{again})

	for _, tt := range []struct {
		query string
		want  []string
	}{
		{`SELECT count(*) FROM tests WHERE build_id = 100`, []string{"2"}},
		{`SELECT count(*) FROM tests WHERE build_id = 101`, []string{"10"}},
		{`SELECT count(*) FROM run_errors`, []string{"0"}},
		{`SELECT build_id FROM run_symptoms`, []string{"101"}},
		{`SELECT result FROM runs ORDER BY build_id`, []string{"success", "failure"}},
		{`SELECT count(*) FROM symptoms`, []string{"1"}},
	} {
		if got := queryStrings(t, d.db, tt.query); !slices.Equal(got, tt.want) {
			t.Errorf("%s = %v, want %v", tt.query, got, tt.want)
		}
	}
}

func TestWriteMergesRepeatedTests(t *testing.T) {
	tests := []struct {
		statuses []string
		want     string
	}{
		{[]string{"pass", "pass"}, "pass"},
		{[]string{"fail", "pass"}, "flake"},
		{[]string{"pass", "fail"}, "flake"},
		{[]string{"fail", "fail"}, "fail"},
		{[]string{"skip", "fail"}, "fail"},
		{[]string{"pass", "skip"}, "pass"},
		{[]string{"flake", "pass"}, "flake"},
		{[]string{"fail", "pass", "fail"}, "flake"},
	}
	d := openTest(t)
	for _, tt := range tests {
		name := strings.Join(tt.statuses, "-")
		t.Run(name, func(t *testing.T) {
			rec := testRecord(1, 0)
			for i, s := range tt.statuses {
				msg := ""
				if s == "fail" {
					msg = fmt.Sprintf("failure %d", i)
				}
				rec.Tests = append(rec.Tests, prowcrawl.Test{Suite: "s", Name: name, Status: s, DurationS: float64(i + 1), Message: msg})
			}
			write(t, d, []prowcrawl.Record{rec})
			got := queryStrings(t, d.db, `SELECT status || '|' || duration_s || '|' || coalesce(message, 'NULL') FROM tests`)
			wantMsg := "NULL"
			if i := slices.Index(tt.statuses, "fail"); i >= 0 {
				wantMsg = fmt.Sprintf("failure %d", i)
			}
			want := fmt.Sprintf("%s|%d.0|%s", tt.want, len(tt.statuses), wantMsg)
			if !slices.Equal(got, []string{want}) {
				t.Errorf("tests = %v, want [%s]", got, want)
			}
		})
	}
}

func TestCursorNeverMovesBackwards(t *testing.T) {
	later := started.Add(time.Hour)
	tests := []struct {
		name  string
		moves []prowcrawl.Cursor
		want  prowcrawl.Cursor
	}{
		{"first", []prowcrawl.Cursor{{BuildID: 10, StartedAt: started}}, prowcrawl.Cursor{BuildID: 10, StartedAt: started}},
		{"forward", []prowcrawl.Cursor{{BuildID: 10, StartedAt: started}, {BuildID: 20, StartedAt: later}}, prowcrawl.Cursor{BuildID: 20, StartedAt: later}},
		{"backward", []prowcrawl.Cursor{{BuildID: 20, StartedAt: later}, {BuildID: 10, StartedAt: started}}, prowcrawl.Cursor{BuildID: 20, StartedAt: later}},
		{"same, time learned", []prowcrawl.Cursor{{BuildID: 20}, {BuildID: 20, StartedAt: later}}, prowcrawl.Cursor{BuildID: 20, StartedAt: later}},
		{"same, time not known", []prowcrawl.Cursor{{BuildID: 20, StartedAt: later}, {BuildID: 20}}, prowcrawl.Cursor{BuildID: 20, StartedAt: later}},
		{"numeric, not text", []prowcrawl.Cursor{{BuildID: 1746000000000000000}, {BuildID: 99999}}, prowcrawl.Cursor{BuildID: 1746000000000000000}},
		{"one batch", []prowcrawl.Cursor{{BuildID: 30}, {BuildID: 5}}, prowcrawl.Cursor{BuildID: 30}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := openTest(t)
			job := "job-" + strings.ReplaceAll(tt.name, " ", "-")
			var batch []prowcrawl.Cursor
			for _, c := range tt.moves {
				c.Bucket, c.Job = bucket, job
				if tt.name == "one batch" {
					batch = append(batch, c)
					continue
				}
				write(t, d, nil, c)
			}
			if batch != nil {
				write(t, d, nil, batch...)
			}
			got, ok, err := d.Cursor(t.Context(), bucket, job)
			if err != nil || !ok {
				t.Fatalf("Cursor = %v, %v", ok, err)
			}
			tt.want.Bucket, tt.want.Job = bucket, job
			if got != tt.want {
				t.Errorf("Cursor = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestWriteStoresNull(t *testing.T) {
	d := openTest(t)
	rec := prowcrawl.Record{
		Job: prowcrawl.Job{Name: "release-openshift-origin-installer-e2e-aws-upgrade"},
		Run: prowcrawl.Run{BuildID: 14098, Bucket: "origin-ci-test", Path: "logs/x/14098", URL: "https://prow/x",
			Result: "pending", FetchStatus: "complete"},
		Tests: []prowcrawl.Test{{Suite: "s", Name: "t", Status: "pass"}},
	}
	write(t, d, []prowcrawl.Record{rec})
	for table, cols := range map[string][]string{
		"jobs": {"type", "release", "from_release", "upgrade", "platform", "network", "arch"},
		"runs": {"started_at", "finished_at", "release", "from_release", "upgrade", "from_version", "to_version",
			"upgrade_state", "tag", "from_tag", "pull", "fetch_error"},
		"tests": {"message"},
	} {
		for _, col := range cols {
			q := fmt.Sprintf("SELECT count(*) FROM %s WHERE %s IS NULL", table, col)
			if got := queryStrings(t, d.db, q); !slices.Equal(got, []string{"1"}) {
				t.Errorf("%s.%s is not NULL", table, col)
			}
		}
	}
	// A zero CrawledAt is the time of the write.
	if got := queryStrings(t, d.db, `SELECT abs(unixepoch() - unixepoch(crawled_at)) < 60 FROM runs`); !slices.Equal(got, []string{"1"}) {
		t.Errorf("crawled_at is not now: %v", got)
	}
}

func TestTimestamps(t *testing.T) {
	d := openTest(t)
	rec := testRecord(100, 0)
	// Another zone and a fraction of a second are stored as UTC to the second.
	rec.Run.StartedAt = time.Date(2026, 1, 12, 15, 58, 46, 750_000_000, time.FixedZone("EST", -5*3600))
	write(t, d, []prowcrawl.Record{rec})
	for _, tt := range []struct{ query, want string }{
		{`SELECT started_at FROM runs`, "2026-01-12T20:58:46Z"},
		{`SELECT datetime(started_at) FROM runs`, "2026-01-12 20:58:46"},
		{`SELECT datetime(finished_at) FROM runs`, "2026-01-12 22:58:46"},
		{`SELECT (unixepoch(finished_at) - unixepoch(started_at)) / 60 FROM runs`, "120"},
		{`SELECT date(crawled_at) FROM runs`, "2026-01-13"},
		{`SELECT count(*) FROM runs WHERE started_at >= datetime('2026-01-12')`, "1"},
	} {
		if got := queryStrings(t, d.db, tt.query); !slices.Equal(got, []string{tt.want}) {
			t.Errorf("%s = %v, want %s", tt.query, got, tt.want)
		}
	}
}

func TestWriteRejects(t *testing.T) {
	tests := []struct {
		name   string
		change func(*prowcrawl.Record)
		want   string
	}{
		{"bad result", func(r *prowcrawl.Record) { r.Run.Result = "FAILURE" }, "CHECK constraint failed"},
		{"no result", func(r *prowcrawl.Record) { r.Run.Result = "" }, "CHECK constraint failed"},
		{"bad fetch status", func(r *prowcrawl.Record) { r.Run.FetchStatus = "done" }, "CHECK constraint failed"},
		{"bad upgrade state", func(r *prowcrawl.Record) { r.Run.UpgradeState = "Failed" }, "CHECK constraint failed"},
		{"bad test status", func(r *prowcrawl.Record) { r.Tests[0].Status = "passed" }, "CHECK constraint failed"},
		{"bad error kind", func(r *prowcrawl.Record) { r.Errors = []prowcrawl.RunError{{Object: "o", Kind: "eof", Message: "m"}} }, "CHECK constraint failed"},
		{"run of another job", func(r *prowcrawl.Record) { r.Run.Job = "other" }, `run is of job "other"`},
		{"no job name", func(r *prowcrawl.Record) { r.Job.Name, r.Run.Job = "", "" }, "job has no name"},
		{"no build id", func(r *prowcrawl.Record) { r.Run.BuildID = 0 }, "build id is not positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := openTest(t)
			bad := testRecord(200, 1)
			tt.change(&bad)
			err := d.Write(t.Context(), []prowcrawl.Record{testRecord(100, 3), bad},
				[]prowcrawl.Cursor{{Bucket: bucket, Job: jobName, BuildID: 200}})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Write error = %v, want one saying %q", err, tt.want)
			}
			// Nothing of the batch is stored, not even the good record.
			for _, table := range []string{"jobs", "runs", "tests", "run_errors", "crawl_cursors"} {
				if n := count(t, d, table); n != 0 {
					t.Errorf("%s has %d rows after a failed write", table, n)
				}
			}
		})
	}
}

func TestForeignKeys(t *testing.T) {
	d := openTest(t)
	write(t, d, []prowcrawl.Record{testRecord(100, 1)})
	for _, stmt := range []string{
		`INSERT INTO tests (job, build_id, suite, name, status) VALUES ('` + jobName + `', 999, 's', 'n', 'pass')`,
		`INSERT INTO run_errors (job, build_id, object, kind, message) VALUES ('nojob', 1, 'o', 'read', 'm')`,
		`INSERT INTO run_symptoms (job, build_id, symptom_id, hits) VALUES ('` + jobName + `', 100, 'no-such-symptom', 1)`,
		`INSERT INTO runs (job, build_id, bucket, path, url, result, fetch_status, crawled_at)
			VALUES ('unknown-job', 1, 'b', 'p', 'u', 'success', 'complete', '2026-01-01T00:00:00Z')`,
	} {
		if _, err := d.db.ExecContext(t.Context(), stmt); err == nil || !strings.Contains(err.Error(), "FOREIGN KEY constraint failed") {
			t.Errorf("%s: error = %v, want a foreign key failure", stmt, err)
		}
	}
	// Deleting a run takes its rows with it.
	if _, err := d.db.ExecContext(t.Context(), `DELETE FROM runs`); err != nil {
		t.Fatal(err)
	}
	if n := count(t, d, "tests"); n != 0 {
		t.Errorf("tests has %d rows after its run was deleted", n)
	}
}

func TestWriteCancelled(t *testing.T) {
	d := openTest(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := d.Write(ctx, []prowcrawl.Record{testRecord(1, 1)}, nil); err == nil {
		t.Fatal("Write with a cancelled context succeeded")
	}
	if n := count(t, d, "runs"); n != 0 {
		t.Errorf("runs has %d rows", n)
	}
}

// A reader with its own connection, as sqlite3 is, sees a batch whole or not at
// all, and is not blocked by the writer.
func TestConcurrentReaderSeesWholeBatches(t *testing.T) {
	d := openTest(t)
	raw := openRaw(t, d.Path())
	const q = `SELECT (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM tests) || ' ' ||
	coalesce((SELECT build_id FROM crawl_cursors), 'none')`
	batch := func(first int64) []prowcrawl.Record {
		var recs []prowcrawl.Record
		for b := first; b < first+10; b++ {
			recs = append(recs, testRecord(b, 20))
		}
		return recs
	}

	var during []string
	d.beforeCommit = func() { during = append(during, queryStrings(t, raw, q)...) }
	write(t, d, batch(1), prowcrawl.Cursor{Bucket: bucket, Job: jobName, BuildID: 10})
	write(t, d, batch(11), prowcrawl.Cursor{Bucket: bucket, Job: jobName, BuildID: 20})
	d.beforeCommit = nil

	if want := []string{"0 0 none", "10 200 10"}; !slices.Equal(during, want) {
		t.Errorf("reader during the writes saw %q, want %q", during, want)
	}
	if got := queryStrings(t, raw, q); !slices.Equal(got, []string{"20 400 20"}) {
		t.Errorf("reader after the writes saw %q", got)
	}
}

func BenchmarkWrite(b *testing.B) {
	// A backfill's batches, and a crawl's: a run or a few at a time, as
	// the writer stores what has arrived whenever it is idle.
	for _, size := range []struct{ runs, tests int }{{100, 300}, {2, 300}} {
		b.Run(fmt.Sprintf("batch=%d", size.runs), func(b *testing.B) {
			runs, tests := size.runs, size.tests
			d := openTest(b)
			batch := make([]prowcrawl.Record, runs)
			for i := range batch {
				batch[i] = testRecord(int64(i+1), tests)
			}
			var next int64 = 1
			for b.Loop() {
				// New runs each time, as a crawl writes them.
				for i := range batch {
					batch[i].Run.BuildID = next
					next++
				}
				if err := d.Write(b.Context(), batch, []prowcrawl.Cursor{{Bucket: bucket, Job: jobName, BuildID: next - 1}}); err != nil {
					b.Fatal(err)
				}
			}
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(b.N*runs)/sec, "runs/s")
			b.ReportMetric(float64(b.N*runs*tests)/sec, "tests/s")
		})
	}
}

// TestWriteSameRunTwiceInOneBatch: when one batch holds two records of the
// same run (a crawl that read it again before the batch was written), the
// second replaces all of the first: its tests, errors, symptoms,
// disruption rows and the counts kept from them, as if it alone had been
// written.
func TestWriteSameRunTwiceInOneBatch(t *testing.T) {
	const symptoms = `INSERT INTO symptoms (id, title, source) VALUES ('upgrade-incomplete', 'Upgrade incomplete', 'builtin'),
	('etcd-connection-refused', 'etcd refused', 'builtin')`
	first := testRecord(100, 10)
	first.Errors = []prowcrawl.RunError{{Object: "a", Kind: "read", Message: "x"}}
	first.Symptoms = []prowcrawl.RunSymptom{{SymptomID: "upgrade-incomplete", Hits: 3}, {SymptomID: "etcd-connection-refused", Hits: 1}}
	first.Disruptions = []prowcrawl.RunDisruption{{File: "d1.json", Backend: "kube-api-new-connections", BackendName: "kube-api", Connection: "new", Seconds: 7, Source: prowcrawl.DisruptionFromFile},
		{File: "d1.json", Backend: "oauth-api-new-connections", BackendName: "oauth-api", Connection: "new", Seconds: 2, Source: prowcrawl.DisruptionFromFile}}
	second := testRecord(100, 4)
	second.Run.Result = "success"
	second.Tests[1].Status, second.Tests[1].Message = "flake", "passed on retry"
	second.Errors = []prowcrawl.RunError{{Object: "b", Kind: "parse", Message: "y"}}
	second.Symptoms = []prowcrawl.RunSymptom{{SymptomID: "etcd-connection-refused", Hits: 2}}
	second.Disruptions = []prowcrawl.RunDisruption{{File: "d2.json", Backend: "kube-api-new-connections", BackendName: "kube-api", Connection: "new", Seconds: 1, Source: prowcrawl.DisruptionFromFile}}
	other := testRecord(101, 3)

	both, alone := openTest(t), openTest(t)
	for _, d := range []*DB{both, alone} {
		if _, err := d.db.ExecContext(t.Context(), symptoms); err != nil {
			t.Fatal(err)
		}
	}
	write(t, both, []prowcrawl.Record{first, other, second})
	write(t, alone, []prowcrawl.Record{other, second})

	tables := []string{"tests", "run_errors", "run_symptoms", "run_disruptions", "test_counts", "run_disruption_totals", "disruption_days"}
	for _, table := range tables {
		// Every column, in order: rowids of equal rows may differ.
		order := strings.Join(queryStrings(t, both.db, `SELECT name FROM pragma_table_info(?) WHERE name <> 'updated_at'`, table), ", ")
		if got, want := tableRows(t, both, table, order), tableRows(t, alone, table, order); !slices.Equal(got, want) {
			t.Errorf("%s after both records in one batch\n got %q\nwant %q (the second record alone)", table, got, want)
		}
	}
	if got := queryStrings(t, both.db, `SELECT count(*) FROM tests WHERE build_id = 100`); !slices.Equal(got, []string{"4"}) {
		t.Errorf("run 100 holds %v tests, want the second record's 4", got)
	}
	if got := queryStrings(t, both.db, `SELECT result FROM runs WHERE build_id = 100`); !slices.Equal(got, []string{"success"}) {
		t.Errorf("run 100 is %v, want the second record's success", got)
	}
}
