package prow

import (
	"fmt"
	"strings"
	"testing"
)

// TestMergerBounds: a Merger fed 30,000 cases holds its cap of tests and
// the failures past it, each message cut to MaxMessage, and remembers the
// names of passes left out only up to its bound, saying when it forgot.
func TestMergerBounds(t *testing.T) {
	m := NewMerger(1000)
	for i := range 30_000 {
		c := TestCase{Suite: "s", Name: fmt.Sprintf("test %d", i), Status: StatusPass}
		if i%1000 == 3 {
			c.Status, c.Message = StatusFail, strings.Repeat("x", 10<<10)
		}
		m.Add(c)
	}
	got := m.Results()
	if len(got) != 1000+29 {
		t.Errorf("%d results, want the cap and the 29 failures past it", len(got))
	}
	for _, r := range got {
		if len(r.Message) > MaxMessage {
			t.Fatalf("%s: a message of %d bytes held", r.Name, len(r.Message))
		}
	}
	if cases, failures, forgotten := m.Dropped(); cases != 30_000-1000-29 || failures != 0 || !forgotten {
		t.Errorf("Dropped() = %d, %d, %v; want %d, 0, true", cases, failures, forgotten, 30_000-1000-29)
	}
	if len(m.passedOut) != droppedNamesPerTest*1000 {
		t.Errorf("%d names of passes left out remembered, want the bound %d", len(m.passedOut), droppedNamesPerTest*1000)
	}
	// Without a cap, it is MergeTests.
	cases := []TestCase{{Name: "a", Status: StatusFail}, {Name: "b", Status: StatusPass}, {Name: "a", Status: StatusPass}}
	u := NewMerger(0)
	for _, c := range cases {
		u.Add(c)
	}
	if a, b := fmt.Sprint(u.Results()), fmt.Sprint(MergeTests(cases)); a != b {
		t.Errorf("NewMerger(0): %s, MergeTests: %s", a, b)
	}
}
