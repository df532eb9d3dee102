package crawler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/openshift-eng/prowcrawl/gcs"
	"github.com/openshift-eng/prowcrawl/prow"
)

// TestLateRun: a run whose directory appears in the bucket after a newer
// run was crawled (a pod that waited hours to be scheduled, a late upload,
// a partial rsync) is read by the next incremental crawl, which lists each
// job from 12 hours before its cursor and compares with the database.
// Before, the run was behind the cursor and never read, and every crawl
// exited 0. For sequential ids, the 40 ids below the cursor are compared.
func TestLateRun(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	t0 := now.Add(-10 * time.Hour)
	snow := func(at time.Time) int64 { return prow.MinBuildIDAt(at) + 4242 }
	for _, kind := range []string{"snowflake", "sequential"} {
		t.Run(kind, func(t *testing.T) {
			ids := []int64{snow(t0), snow(t0.Add(3 * time.Hour)), snow(t0.Add(6 * time.Hour))}
			if kind == "sequential" {
				ids = []int64{1001, 1002, 1003}
			}
			runObjs := func(i int) []fakestorage.Object {
				dir := fmt.Sprintf("logs/%s/%d/", hostileJob, ids[i])
				at := t0.Add(time.Duration(i) * 3 * time.Hour)
				return []fakestorage.Object{
					obj("ci", dir+"started.json", []byte(started(at))),
					obj("ci", dir+"finished.json", []byte(finished(at.Add(time.Hour), "SUCCESS"))),
				}
			}
			// The middle run is not there yet.
			e := newEmulator(t, "ci", append(runObjs(0), runObjs(2)...))
			src, err := gcs.New(t.Context(), "gs://ci", gcs.Options{})
			if err != nil {
				t.Fatal(err)
			}
			d := openDB(t)
			cfg := Config{Jobs: upgradeJobs, Now: func() time.Time { return now }}
			if _, err := New(src, d, cfg).Run(t.Context()); err != nil {
				t.Fatal(err)
			}
			stored := func() string {
				return strings.Join(query(t, d, `SELECT build_id FROM runs ORDER BY build_id`), ",")
			}
			if got, want := stored(), fmt.Sprintf("%d,%d", ids[0], ids[2]); got != want {
				t.Fatalf("first crawl stored %s, want %s", got, want)
			}
			if got := query(t, d, `SELECT build_id FROM crawl_cursors`); len(got) != 1 || got[0] != fmt.Sprint(ids[2]) {
				t.Fatalf("cursor %q, want %d", got, ids[2])
			}

			// The late run appears; the next crawl finds and stores it, and
			// the cursor stays where it was.
			for _, o := range runObjs(1) {
				e.fake.CreateObject(o)
			}
			sum, err := New(src, d, cfg).Run(t.Context())
			if err != nil || sum.New != 1 {
				t.Fatalf("second crawl: %v, %+v; want the late run new", err, sum)
			}
			if got, want := stored(), fmt.Sprintf("%d,%d,%d", ids[0], ids[1], ids[2]); got != want {
				t.Fatalf("second crawl stored %s, want %s", got, want)
			}
			if got := query(t, d, `SELECT build_id FROM crawl_cursors`); len(got) != 1 || got[0] != fmt.Sprint(ids[2]) {
				t.Errorf("cursor %q after the late run, want %d", got, ids[2])
			}
			if kind == "snowflake" {
				if off := e.listOffsets()["logs/"+hostileJob+"/"]; off != fmt.Sprintf("logs/%s/%d", hostileJob, prow.MinBuildIDAt(t0.Add(6*time.Hour-lateMargin))) {
					t.Errorf("listed from %q, want 12 hours before the cursor", off)
				}
			}
			// Then nothing is left to read: no object is downloaded.
			e.counts()
			if sum, err := New(src, d, cfg).Run(t.Context()); err != nil || sum.New+sum.Updated != 0 {
				t.Errorf("third crawl: %v, %+v; want nothing to do", err, sum)
			}
			if _, reads := e.counts(); len(reads) != 0 {
				t.Errorf("third crawl downloaded %v", reads)
			}
		})
	}
}

// TestImpossibleCursor: a stored cursor past any id Prow can have issued
// (9223372036854775807, from a shard or a hand edit) does not stop its
// job: the crawl lists the job as a new one and the cursor gives way.
func TestImpossibleCursor(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	id := prow.MinBuildIDAt(now.Add(-2 * time.Hour))
	dir := fmt.Sprintf("logs/%s/%d/", hostileJob, id)
	newEmulator(t, "ci", []fakestorage.Object{
		obj("ci", dir+"started.json", []byte(started(now.Add(-2*time.Hour)))),
		obj("ci", dir+"finished.json", []byte(finished(now.Add(-time.Hour), "SUCCESS"))),
	})
	src, err := gcs.New(t.Context(), "gs://ci", gcs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := openDB(t)
	exec(t, d, `INSERT INTO jobs (name) VALUES (?)`, hostileJob)
	exec(t, d, `INSERT INTO crawl_cursors (bucket, job, build_id, updated_at) VALUES ('ci', ?, 9223372036854775807, '2026-11-20T00:00:00Z')`, hostileJob)
	sum, err := New(src, d, Config{Jobs: upgradeJobs, Now: func() time.Time { return now }}).Run(t.Context())
	if err != nil || sum.New != 1 {
		t.Fatalf("crawl: %v, %+v; want the run stored", err, sum)
	}
	if got := query(t, d, `SELECT build_id FROM crawl_cursors`); len(got) != 1 || got[0] != fmt.Sprint(id) {
		t.Errorf("cursor %q, want %d", got, id)
	}
}

// TestCursorStartWhenReadsFail: a cursor that comes to rest on a run whose
// started.json could not be read says when it is all the same, from the
// time its build id encodes. Before, crawl_cursors.started_at stayed NULL.
func TestCursorStartWhenReadsFail(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	at := now.Add(-3 * time.Hour)
	ok, bad := prow.MinBuildIDAt(at), prow.MinBuildIDAt(at.Add(time.Hour))
	newEmulator(t, "ci", []fakestorage.Object{
		obj("ci", fmt.Sprintf("logs/%s/%d/started.json", hostileJob, ok), []byte(started(at))),
		obj("ci", fmt.Sprintf("logs/%s/%d/finished.json", hostileJob, ok), []byte(finished(at.Add(time.Hour), "SUCCESS"))),
		obj("ci", fmt.Sprintf("logs/%s/%d/started.json", hostileJob, bad), []byte(`{"timestamp": 17`)),
	})
	src, err := gcs.New(t.Context(), "gs://ci", gcs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := openDB(t)
	if _, err := New(src, d, Config{Jobs: upgradeJobs, Now: func() time.Time { return now }}).Run(t.Context()); err == nil {
		t.Fatal("crawl: no error for the unreadable run")
	}
	want := fmt.Sprintf("%d|%s", bad, at.Add(time.Hour).Format(time.RFC3339))
	if got := query(t, d, `SELECT build_id || '|' || coalesce(started_at, 'NULL') FROM crawl_cursors`); len(got) != 1 || got[0] != want {
		t.Errorf("cursor %q, want %q", got, want)
	}
}
