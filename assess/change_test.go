package assess

import (
	"strings"
	"testing"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/db"
)

// TestChangeInTheAnswer: a significant onset names its payloads in the
// answer to question 4 and is the draft's to; a significant end on the
// regressed edge fills the draft's fixedIn; an end that is not significant
// leaves fixedIn out and says why.
func TestChangeInTheAnswer(t *testing.T) {
	const minor = "4.13->4.14 minor"
	const clean, bad = "4.14.0-0.nightly-2026-11-09-010101", "4.14.0-0.nightly-2026-11-11-105549"
	const lastBad, fixed = "4.14.0-0.nightly-2026-11-25-020202", "4.14.0-0.nightly-2026-11-26-030303"
	in := numbers()
	in.Onset = &analyze.Change{Symptom: "pod-network", Scope: db.ScopeEdge, Key: minor, Kind: analyze.KindOnset, Found: true,
		Before: clean, After: bad, Interval: []string{"4.14.0-0.nightly-2026-11-10-020202"}, RunsBefore: 30, RunsAfter: 24, HitsAfter: 9, P: 0.0005, Payloads: 40}
	in.End = &analyze.Change{Symptom: "pod-network", Scope: db.ScopeEdge, Key: minor, Kind: analyze.KindEnd, Found: true,
		Before: lastBad, After: fixed, Interval: []string{}, RunsBefore: 24, HitsBefore: 9, RunsAfter: 20, P: 0.001, Payloads: 40}
	a := Assess(in)
	if !strings.Contains(a.Regression.Text, "from payload "+bad) || !strings.Contains(a.Regression.Text, "last clean one: "+clean) {
		t.Errorf("question 4 does not name the onset: %s", a.Regression.Text)
	}
	if o := a.Regression.Onset; o == nil || o.FirstBad != bad || o.LastClean != clean || len(o.Interval) != 1 {
		t.Errorf("onset %+v", o)
	}
	if len(a.Blocked) == 0 {
		t.Fatal("no blocked-edges draft")
	}
	if d := a.Blocked[0]; d.FixedIn != fixed || d.To != bad {
		t.Errorf("draft to %q fixedIn %q, want %q and %q", d.To, d.FixedIn, bad, fixed)
	}

	in.End.Found = false
	a = Assess(in)
	if d := a.Blocked[0]; d.FixedIn != "" || !strings.Contains(strings.Join(d.Comments, "\n"), "No fixedIn: no end on "+minor) {
		t.Errorf("an end not significant: fixedIn %q, comments %q", d.FixedIn, d.Comments)
	}
}
