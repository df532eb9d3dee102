package crawler

import (
	"fmt"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/mirror"
)

// TestCursorWaitsForSlowRuns: runs finish out of order, and the cursor must
// never pass a run that is still being read.
func TestCursorWaitsForSlowRuns(t *testing.T) {
	listed := []int64{10, 20, 30, 40, 50}
	// 10 and 30 were stored before; 20, 40 and 50 are read now.
	tasks := []task{{id: 20, listed: true}, {id: 40, listed: true}, {id: 50, listed: true}, {id: 5, listed: false}}
	tr := newCursorTracker("b", "j", listed, tasks, 0)
	at := func(id int64) time.Time { return time.Unix(id, 0) }

	if cur, ok := tr.advance(); !ok || cur.BuildID != 10 {
		t.Fatalf("before any read: cursor %v %v, want 10 (stored already)", cur.BuildID, ok)
	}
	tr.done(40, at(40))
	if cur, ok := tr.advance(); ok {
		t.Fatalf("after 40 with 20 in flight: cursor moved to %d", cur.BuildID)
	}
	tr.done(20, at(20))
	cur, ok := tr.advance()
	if !ok || cur.BuildID != 40 || !cur.StartedAt.Equal(at(40)) {
		t.Fatalf("after 20: cursor %d %v at %v, want 40", cur.BuildID, ok, cur.StartedAt)
	}
	tr.done(50, at(50))
	if cur, ok := tr.advance(); !ok || cur.BuildID != 50 {
		t.Fatalf("after 50: cursor %d %v, want 50", cur.BuildID, ok)
	}
	if _, ok := tr.advance(); ok {
		t.Fatal("cursor reported a move without progress")
	}
}

func TestCursorNeverMovesBack(t *testing.T) {
	tr := newCursorTracker("b", "j", []int64{1, 2}, nil, 7)
	if cur, ok := tr.advance(); ok {
		t.Fatalf("cursor moved back from 7 to %d", cur.BuildID)
	}
}

// TestCursorRestsOnStoredRun: a crawl stopped before its cursor caught up
// leaves runs stored above the cursor. When the next crawl's cursor comes
// to rest on one of them, it carries that run's start time, as the cursor
// of an uninterrupted crawl does.
func TestCursorRestsOnStoredRun(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	const job = "a-4.14-upgrade"
	files := map[string]string{}
	for id := 1; id <= 3; id++ {
		dir := fmt.Sprintf("logs/%s/%d/", job, id)
		files[dir+"started.json"] = started(t0.Add(time.Duration(id) * time.Minute))
		files[dir+"finished.json"] = finished(t0.Add(time.Hour), "SUCCESS")
	}
	src, err := mirror.New(writeTree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	d := openDB(t)
	// What the stopped crawl stored: runs 2 and 3, but no cursor, since
	// run 1 was still being read.
	for id := int64(2); id <= 3; id++ {
		rec := prowcrawl.Record{Job: prowcrawl.Job{Name: job}, Run: prowcrawl.Run{BuildID: id, Bucket: src.Bucket(), Path: fmt.Sprintf("logs/%s/%d", job, id),
			StartedAt: t0.Add(time.Duration(id) * time.Minute), Result: "success", FetchStatus: "complete"}}
		if err := d.Write(t.Context(), []prowcrawl.Record{rec}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := New(src, d, Config{Jobs: upgradeJobs, Since: t0.Add(-time.Hour)}).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := query(t, d, `SELECT build_id, started_at FROM crawl_cursors`); len(got) != 1 || got[0] != "3|2026-11-20T10:03:00Z" {
		t.Errorf("cursor %q, want run 3 with its start", got)
	}
}
