package analyze

import (
	"math"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/internal/benchdb"
)

// TestHysteresis checks the looser bar against Sippy's: confidence 5
// points lower, 2 points less of rise.
func TestHysteresis(t *testing.T) {
	got := Hysteresis(DefaultOptions())
	if !near(got.Alpha, 0.10) || !near(got.MinDelta, 3) || got.MinHits != 3 || got.MinRuns != 10 {
		t.Errorf("Hysteresis = alpha %v, delta %v, hits %d, runs %d; want 0.10, 3, 3, 10", got.Alpha, got.MinDelta, got.MinHits, got.MinRuns)
	}
}

// growth is one night of a growing database: runs added to the sample
// edge (4.13->4.14), then what the analysis must make of it.
type growth struct {
	runs, hits     int
	strict, loose  string // the verdicts at the design's bar and at the looser one
	status, change string // the edge's regression afterwards, and what this analysis changed
}

// TestRegressionLifecycle analyses a database four times as it grows:
// a regression opens, stays open while it is only significant at the
// looser bar, closes, and reopens; after each, the changes are read as
// report --changes reads them.
func TestRegressionLifecycle(t *testing.T) {
	d := openStore(t)
	p := newPlanter(t, d)
	sampleJob := benchdb.UpgradeJob("4.13", "4.14", "minor", "aws", "ovn")
	basisJob := benchdb.UpgradeJob("4.12", "4.13", "minor", "aws", "ovn")
	// Every run is older than the sample window (the last 7 days before
	// now), so that only the release comparison speaks.
	at := now.AddDate(0, 0, -30)
	next := func() time.Time { at = at.Add(time.Hour); return at }
	for i := range 20 {
		var shows []string
		if i < 2 {
			shows = []string{symptom}
		}
		p.run(basisJob, "success", next(), shows...)
	}
	nights := []growth{
		{12, 6, VerdictRegression, VerdictRegression, db.RegressionOpen, db.ChangeOpened}, // 6/12 against 2/20: p 0.018
		{8, 1, VerdictFlake, VerdictRegression, db.RegressionOpen, ""},                    // 7/20: p 0.064, under 0.10
		{10, 0, VerdictFlake, VerdictFlake, db.RegressionClosed, db.ChangeClosed},         // 7/30: p 0.14
		{10, 10, VerdictRegression, VerdictRegression, db.RegressionOpen, db.ChangeReopened},
	}
	opts := DefaultOptions()
	opts.Now = now
	edge := "4.13->4.14 minor"
	sampleRuns, sampleHits := 0, 0
	var opened time.Time
	for night, g := range nights {
		for i := range g.runs {
			var shows []string
			if i < g.hits {
				shows = []string{symptom}
			}
			p.run(sampleJob, "failure", next(), shows...)
		}
		p.flush()
		sampleRuns, sampleHits = sampleRuns+g.runs, sampleHits+g.hits
		// The setup's own check: the counts give the verdicts intended.
		s := Sample{Runs: sampleRuns, Hits: sampleHits, BasisRuns: 20, BasisHits: 2}
		if strict, _ := decide(s, opts); strict != g.strict {
			t.Fatalf("night %d: %d/%d is %s at the design's bar, want %s", night, sampleHits, sampleRuns, strict, g.strict)
		}
		if loose, _ := decide(s, Hysteresis(opts)); loose != g.loose {
			t.Fatalf("night %d: %d/%d is %s at the looser bar, want %s", night, sampleHits, sampleRuns, loose, g.loose)
		}

		sum := analyze(t, d, opts)
		regs, err := d.Regressions(t.Context(), "")
		if err != nil {
			t.Fatal(err)
		}
		var reg *db.Regression
		for i := range regs {
			if regs[i].Symptom == symptom && regs[i].Scope == db.ScopeEdge && regs[i].Key == edge {
				reg = &regs[i]
			}
		}
		if reg == nil {
			t.Fatalf("night %d: no regression of %s on %s in %+v", night, symptom, edge, regs)
		}
		if reg.Status != g.status || reg.SampleRuns != sampleRuns || reg.SampleHits != sampleHits {
			t.Errorf("night %d: regression %s %d/%d, want %s %d/%d", night, reg.Status, reg.SampleHits, reg.SampleRuns, g.status, sampleHits, sampleRuns)
		}
		if night == 0 {
			opened = reg.OpenedAt
			// The first run of the sample that showed it is the oldest
			// sample run (the first planted with it).
			if reg.FirstRun == "" || reg.FirstRunURL == "" || reg.Comparison != db.CompareRelease || reg.BasisLabel != "4.12->4.13 minor" {
				t.Errorf("opened regression %+v: want its first run, the release comparison and the basis edge", reg)
			}
		}
		if !reg.OpenedAt.Equal(opened) {
			t.Errorf("night %d: opened_at moved from %v to %v", night, opened, reg.OpenedAt)
		}
		switch g.status {
		case db.RegressionOpen:
			if !reg.ClosedAt.IsZero() {
				t.Errorf("night %d: open with closed_at %v", night, reg.ClosedAt)
			}
		case db.RegressionClosed:
			if reg.ClosedAt.IsZero() {
				t.Errorf("night %d: closed without closed_at", night)
			}
		}
		if g.change == db.ChangeReopened && (reg.Reopened != 1 || reg.ReopenedAt.IsZero()) {
			t.Errorf("night %d: reopened %d times at %v, want once", night, reg.Reopened, reg.ReopenedAt)
		}

		// report --changes: what the newest analysis changed. The edge and
		// its one variant move together.
		ch, err := d.RegressionChanges(t.Context(), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		lists := map[string][]db.Regression{db.ChangeOpened: ch.Opened, db.ChangeReopened: ch.Reopened, db.ChangeClosed: ch.Closed, "": ch.StillOpen}
		if g.status == db.RegressionClosed && g.change == "" {
			lists[""] = nil
		}
		for change, list := range lists {
			want := 0
			if change == g.change && (g.change != "" || g.status == db.RegressionOpen) {
				want = 2
			}
			if len(list) != want {
				t.Errorf("night %d: %d regressions %q (\"\" = still open), want %d: %+v", night, len(list), change, want, list)
			}
		}
		if g.change != "" && sum.Changes != 2 || g.change == "" && sum.Changes != 0 {
			t.Errorf("night %d: summary counts %d changes", night, sum.Changes)
		}
	}

	// --since before the first analysis: every change, each regression by
	// its last (reopened).
	ch, err := d.RegressionChanges(t.Context(), opened.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Analyses) != len(nights) || len(ch.Reopened) != 2 || len(ch.Opened)+len(ch.Closed)+len(ch.StillOpen) != 0 {
		t.Errorf("changes since the start: %d analyses, opened %d, reopened %d, closed %d, still open %d; want %d, 0, 2, 0, 0",
			len(ch.Analyses), len(ch.Opened), len(ch.Reopened), len(ch.Closed), len(ch.StillOpen), len(nights))
	}
}

// TestDisruptionStats plants per-run disruption and checks the medians,
// P95s and worst values of an edge and its basis against hand-computed
// ones, and the aggregator's check.
func TestDisruptionStats(t *testing.T) {
	d := openStore(t)
	p := newPlanter(t, d)
	sampleJob := benchdb.UpgradeJob("4.13", "4.14", "minor", "aws", "ovn")
	basisJob := benchdb.UpgradeJob("4.12", "4.13", "minor", "aws", "ovn")
	at := now.AddDate(0, 0, -30)
	plant := func(j prowcrawl.Job, seconds []float64) {
		for _, s := range seconds {
			at = at.Add(time.Hour)
			rec := p.run(j, "success", at)
			// Two files (upgrade and conformance phases): the run's
			// disruption is their sum.
			rec.Disruptions = []prowcrawl.RunDisruption{
				{File: "a/backend-disruption_1.json", Backend: "kube-api-new-connections", BackendName: "kube-api", Connection: "new", Seconds: s / 2, Source: prowcrawl.DisruptionFromFile},
				{File: "a/backend-disruption_2.json", Backend: "kube-api-new-connections", BackendName: "kube-api", Connection: "new", Seconds: s / 2, Source: prowcrawl.DisruptionFromFile},
				{File: "a/backend-disruption_1.json", Backend: "oauth-api-new-connections", Seconds: math.NaN(), Source: prowcrawl.DisruptionFromFile},
			}
		}
	}
	// Sample: 0..9 and 30; basis: ten runs of 0 and one of 2.
	plant(sampleJob, []float64{30, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0})
	plant(basisJob, []float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2})
	p.flush()
	opts := DefaultOptions()
	opts.Now = now
	analyze(t, d, opts)
	stats, err := d.DisruptionStats(t.Context(), db.ScopeEdge, "4.13->4.14 minor")
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) != 1 {
		t.Fatalf("stats %+v, want one row (kube-api, release; oauth has no durations)", stats)
	}
	s := stats[0]
	// Sample sorted 0..9, 30: n 11, median rank 5 = 5; P95 rank 9.5: 9 + 0.5(30-9) = 19.5.
	// Basis: median 0; P95 rank 9.5: 0 + 0.5(2-0) = 1.
	if s.Backend != "kube-api-new-connections" || s.Comparison != db.CompareRelease || s.BasisLabel != "4.12->4.13 minor" ||
		s.SampleRuns != 11 || !near(s.SampleMedian, 5) || !near(s.SampleP95, 19.5) || !near(s.SampleMax, 30) ||
		s.BasisRuns != 11 || !near(s.BasisMedian, 0) || !near(s.BasisP95, 1) || !near(s.BasisMax, 2) ||
		!near(s.P95Delta, 18.5) || s.Verdict != db.DisruptionWorse {
		t.Errorf("stat %+v", s)
	}
	basis, err := d.DisruptionStats(t.Context(), db.ScopeJob, basisJob.Name)
	if err != nil {
		t.Fatal(err)
	}
	if len(basis) != 0 {
		t.Errorf("a job has no release comparison and no run in the sample window: %+v", basis)
	}
}
