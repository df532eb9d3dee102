package analyze

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/internal/benchdb"
)

// TestComputeWindowEqualsOnlyThoseRuns: the analysis of a window is the
// analysis of a database that holds only the window's runs, number for
// number; runs before and after it change nothing.
func TestComputeWindowEqualsOnlyThoseRuns(t *testing.T) {
	all, only := openStore(t), openStore(t)
	pa, po := newPlanter(t, all), newPlanter(t, only)
	since, until := now.AddDate(0, 0, -20), now.AddDate(0, 0, -2)
	jobs := []prowcrawl.Job{benchdb.UpgradeJob("4.13", "4.14", "minor", "aws", "ovn"), benchdb.UpgradeJob("4.12", "4.13", "minor", "aws", "ovn"),
		benchdb.UpgradeJob("4.14", "4.14", "micro", "gcp", "ovn")}
	for i, j := range jobs {
		// Inside the window: the same runs in both databases.
		pa.runs(j, 12+i, 3+2*i, symptom, since.Add(time.Hour), until.Add(-time.Hour))
		po.runs(j, 12+i, 3+2*i, symptom, since.Add(time.Hour), until.Add(-time.Hour))
		// Outside it, only in the first: many hits before, none after.
		pa.runs(j, 30, 25, symptom, now.AddDate(0, 0, -200), since.Add(-time.Hour))
		pa.runs(j, 10, 0, symptom, until, now)
	}
	pa.flush()
	po.flush()
	opts := DefaultOptions()
	opts.Now = until.Add(-time.Minute)
	got, err := Compute(t.Context(), all, opts, Query{Bounds: db.Bounds{Since: since, Until: until}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Compute(t.Context(), only, opts, Query{Bounds: db.Bounds{Since: since}})
	if err != nil {
		t.Fatal(err)
	}
	lines := func(vs []db.SymptomVerdict) []string {
		var out []string
		for _, v := range vs {
			out = append(out, fmt.Sprintf("%s %s %s %s|%s %d/%d %s %d/%d %s %s..%s %s..%s", v.Symptom, v.Scope, v.Key, v.Comparison,
				v.SampleLabel, v.SampleHits, v.SampleRuns, v.BasisLabel, v.BasisHits, v.BasisRuns, v.Verdict,
				v.SampleFrom.Format(time.DateOnly), v.SampleTo.Format(time.DateOnly), v.BasisFrom.Format(time.DateOnly), v.BasisTo.Format(time.DateOnly)))
		}
		return out
	}
	if g, w := lines(got.Verdicts), lines(want.Verdicts); !slices.Equal(g, w) || len(g) == 0 {
		t.Errorf("verdicts of the window\n got %q\nwant %q", g, w)
	}
	rates := func(rs []db.SymptomRate) []string {
		var out []string
		for _, r := range rs {
			out = append(out, fmt.Sprintf("%s %s %d/%d", r.Scope, r.Key, r.RunsWith, r.FinishedRuns))
		}
		return out
	}
	if g, w := rates(got.Rates), rates(want.Rates); !slices.Equal(g, w) {
		t.Errorf("rates of the window\n got %q\nwant %q", g, w)
	}
	// Over all runs the same edge is a different story: the window is no
	// filter of the all-time analysis.
	full, err := Compute(t.Context(), all, opts, Query{})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(lines(full.Verdicts), lines(got.Verdicts)) {
		t.Error("the window's verdicts equal those of every run: the bounds did nothing")
	}
}

// TestWeeklyMerge: a week with fewer than MinWeekRuns runs is merged with
// the next ones until the point rests on enough runs; the last few join
// the point before them.
func TestWeeklyMerge(t *testing.T) {
	d := openStore(t)
	p := newPlanter(t, d)
	j := benchdb.UpgradeJob("4.13", "4.14", "minor", "aws", "ovn")
	monday := time.Date(2026, 10, 5, 10, 0, 0, 0, time.UTC)
	for week, n := range []int{2, 2, 6, 1, 0, 7, 1} {
		for i := range n {
			r := p.run(j, "success", monday.AddDate(0, 0, 7*week).Add(time.Duration(i)*time.Hour))
			if i == 0 {
				r.Run.Result = "failure"
				r.Symptoms = append(r.Symptoms, prowcrawl.RunSymptom{SymptomID: symptom, Hits: 1})
			}
		}
	}
	p.flush()
	res, err := Compute(t.Context(), d, DefaultOptions(), Query{Weeks: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range res.Weekly[symptom] {
		got = append(got, fmt.Sprintf("%s %s %d/%d", w.Week, w.WeekStart.Format(time.DateOnly), w.Hits, w.Runs))
	}
	want := []string{
		"2026-W41..W43 2026-10-05 3/10", // 2 + 2 + 6 runs
		// 1, none and 7 runs make a point; the last week's one run joins it.
		"2026-W44..W47 2026-10-26 3/9",
	}
	if !slices.Equal(got, want) {
		t.Errorf("weekly points\n got %q\nwant %q", got, want)
	}
}
