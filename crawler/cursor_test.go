package crawler

import (
	"testing"
	"time"
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
