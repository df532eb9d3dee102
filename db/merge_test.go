package db

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// dumpRows renders the crawled tables in a stable order.
func dumpRows(t *testing.T, d *DB) []string {
	t.Helper()
	var out []string
	for _, q := range []string{
		`SELECT name || '|' || coalesce(release, '') FROM jobs ORDER BY name`,
		`SELECT job || '|' || build_id || '|' || result || '|' || fetch_status || '|' || crawled_at FROM runs ORDER BY job, build_id`,
		`SELECT job || '|' || build_id || '|' || name || '|' || status FROM tests ORDER BY job, build_id, suite, name`,
		`SELECT job || '|' || build_id || '|' || symptom_id || '|' || hits FROM run_symptoms ORDER BY 1`,
		`SELECT id || '|' || active FROM symptoms ORDER BY id`,
		`SELECT bucket || '|' || job || '|' || build_id FROM crawl_cursors ORDER BY 1`,
	} {
		out = append(out, queryStrings(t, d.db, q)...)
	}
	return out
}

func TestMerge(t *testing.T) {
	dir := t.TempDir()
	syms := []Symptom{{ID: "etcd-connection-refused", Title: "etcd", Source: "builtin"}}
	shard := func(name string, recs []prowcrawl.Record, cur prowcrawl.Cursor) string {
		p := filepath.Join(dir, name)
		d := openAt(t, p)
		if err := d.SyncSymptoms(t.Context(), syms); err != nil {
			t.Fatal(err)
		}
		write(t, d, recs, cur)
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		return p
	}
	withSymptom := func(r prowcrawl.Record) prowcrawl.Record {
		r.Symptoms = []prowcrawl.RunSymptom{{SymptomID: "etcd-connection-refused", Hits: 2, Excerpt: "dial tcp 10.0.0.1:2379: connect: connection refused"}}
		return r
	}
	other := testRecord(7, 2)
	other.Job.Name, other.Run.Job = "other-upgrade", "other-upgrade"

	// Shard a has runs 1 and 2 (2 still pending); shard b has run 2 finished
	// and run 7 of another job.
	pending := testRecord(2, 0)
	pending.Run.Result, pending.Run.CrawledAt = "pending", crawled.Add(-time.Hour)
	a := shard("a.db", []prowcrawl.Record{withSymptom(testRecord(1, 3)), pending}, prowcrawl.Cursor{Bucket: bucket, Job: jobName, BuildID: 2})
	b := shard("b.db", []prowcrawl.Record{testRecord(2, 4), other}, prowcrawl.Cursor{Bucket: bucket, Job: "other-upgrade", BuildID: 7})

	out := openAt(t, filepath.Join(dir, "out.db"))
	st, err := out.Merge(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	if st.Runs != 2 || st.Tests != 3 || st.Symptoms != 1 {
		t.Errorf("merge of a took %+v, want 2 runs, 3 tests, 1 symptom", st)
	}
	if _, err := out.Merge(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	first := dumpRows(t, out)
	// The finished run 2 of b replaced a's pending one, with its tests.
	if got := queryStrings(t, out.db, `SELECT result || ' ' || (SELECT count(*) FROM tests WHERE build_id = 2) FROM runs WHERE build_id = 2`); !slices.Equal(got, []string{"failure 4"}) {
		t.Errorf("run 2 after the merge: %v, want the finished run with 4 tests", got)
	}
	// Merging again, in either order, changes nothing.
	for _, p := range []string{b, a, a} {
		if _, err := out.Merge(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	if again := dumpRows(t, out); !slices.Equal(again, first) {
		t.Errorf("merging again changed the database:\n%s\nwant\n%s", strings.Join(again, "\n"), strings.Join(first, "\n"))
	}
	if n := count(t, out, "crawl_cursors"); n != 2 {
		t.Errorf("%d cursors, want one per job", n)
	}

	if _, err := out.Merge(t.Context(), filepath.Join(dir, "missing.db")); err == nil {
		t.Error("merging a missing file succeeded")
	}
}
