package assess

import (
	"math"
	"testing"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/db"
)

// TestSummaryNamesEdges: "in short" names every edge where it is a
// regression or that shows it in more than half of its runs, the highest
// rate first, each with its numbers; half exactly is not most.
func TestSummaryNamesEdges(t *testing.T) {
	edge := func(key, basis, verdict string, hits, runs, basisHits, basisRuns int, p float64) db.SymptomVerdict {
		return db.SymptomVerdict{Symptom: "s", Scope: db.ScopeEdge, Comparison: db.CompareRelease, Key: key, Verdict: verdict,
			SampleLabel: key, SampleHits: hits, SampleRuns: runs, SampleRate: float64(hits) / float64(runs),
			BasisLabel: basis, BasisHits: basisHits, BasisRuns: basisRuns, BasisRate: rateOrNaN(basisHits, basisRuns), P: p}
	}
	edges := []db.SymptomVerdict{
		edge("4.13->4.14 minor", "4.12->4.13 minor", analyze.VerdictRegression, 6, 14, 0, 14, 0.008),
		edge("4.14 micro-downgrade", "4.13 micro-downgrade", analyze.VerdictInsufficient, 5, 6, 0, 0, math.NaN()),
		edge("4.14 micro", "4.13 micro", analyze.VerdictFlake, 7, 10, 6, 10, 0.5),
		edge("4.15 micro", "4.14 micro", analyze.VerdictFlake, 5, 10, 4, 10, 0.5),
		edge("4.16 micro", "4.15 micro", analyze.VerdictRegression, 20, 100, 2, 100, 0.0001),
	}
	analyze.SortVerdicts(edges)
	got := summary(Assessment{}, edges, 10, false)
	want := "Most runs of 4.14 micro-downgrade show it: 83% (5/6, 95% CI 44-97%), with no basis to compare with: 4.13 micro-downgrade never ran; " +
		"most runs of 4.14 micro show it: 70% (7/10, 95% CI 40-89%), not significantly more than 60% on 4.13 micro (6/10, p = 0.5); " +
		"a regression on 4.13->4.14 minor: 43% of runs (6/14, 95% CI 21-67%) against 0% (0/14, 95% CI 0-22%) on 4.12->4.13 minor, p = 0.008; " +
		"a regression on 4.16 micro: 20% of runs (20/100, 95% CI 13-29%) against 2% (2/100, 95% CI 1-7%) on 4.15 micro, p < 0.001."
	if got != want {
		t.Errorf("summary\n%s\nwant\n%s", got, want)
	}
	// Without a regression the comparisons' conclusion follows.
	var downgrade []db.SymptomVerdict
	for _, v := range edges {
		if v.Key == "4.14 micro-downgrade" {
			downgrade = append(downgrade, v)
		}
	}
	got = summary(Assessment{Impact: Impact{RunsWith: 5}}, downgrade, 10, false)
	if want := "Most runs of 4.14 micro-downgrade show it: 83% (5/6, 95% CI 44-97%), with no basis to compare with: 4.13 micro-downgrade never ran. " +
		"Not enough runs to say whether it is a regression."; got != want {
		t.Errorf("summary\n%s\nwant\n%s", got, want)
	}
}

func rateOrNaN(hits, runs int) float64 {
	if runs == 0 {
		return math.NaN()
	}
	return float64(hits) / float64(runs)
}
