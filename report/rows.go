package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/db"
)

// verdictOrder is the order rows are listed in: what to act on first.
var verdictOrder = []string{
	analyze.VerdictRegression,
	analyze.VerdictNew,
	analyze.VerdictPersistent,
	analyze.VerdictFlake,
	analyze.VerdictImproved,
	analyze.VerdictNone,
	analyze.VerdictInsufficient,
}

// verdictRank is v's place in verdictOrder; an unknown verdict comes last.
func verdictRank(v string) int {
	if i := slices.Index(verdictOrder, v); i >= 0 {
		return i
	}
	return len(verdictOrder)
}

// sortRows orders verdicts as a report lists them: by verdict (regressions
// first), then the strongest evidence (the smallest p), the highest sample
// rate, and then by name, so that the order is total and stable.
func sortRows(rows []db.SymptomVerdict) {
	slices.SortFunc(rows, func(a, b db.SymptomVerdict) int {
		return cmp.Or(
			cmp.Compare(verdictRank(a.Verdict), verdictRank(b.Verdict)),
			cmpNaNLast(a.P, b.P),
			-cmpNaNLast(a.SampleRate, b.SampleRate),
			cmp.Compare(a.Symptom, b.Symptom),
			cmp.Compare(a.Scope, b.Scope),
			cmp.Compare(a.Key, b.Key),
			cmp.Compare(a.Comparison, b.Comparison),
		)
	})
}

// cmpNaNLast compares floats, with NaN after every number.
func cmpNaNLast(a, b float64) int {
	switch an, bn := math.IsNaN(a), math.IsNaN(b); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmp.Compare(a, b)
}

// comparisonOf is the comparison a report shows for a scope: jobs have no
// release of their own, so they are compared window against window; edges
// and variants release against release.
func comparisonOf(scope string) string {
	if scope == db.ScopeJob || scope == db.ScopePresubmit {
		return db.CompareWindow
	}
	return db.CompareRelease
}

// scopeTitle names a scope as a column header.
func scopeTitle(scope string) string {
	switch scope {
	case db.ScopeJob:
		return "JOB"
	case db.ScopePresubmit:
		return "PRESUBMIT"
	case db.ScopeVariant:
		return "VARIANT"
	}
	return "EDGE"
}

// pct1 is a rate as a percentage with one decimal: "42.9%"; "-" without runs.
func pct1(rate float64) string {
	if math.IsNaN(rate) {
		return "-"
	}
	return strconv.FormatFloat(100*rate, 'f', 1, 64) + "%"
}

// pct0 is a rate as a whole percentage, as people say it: "43%". A rate
// that is neither 0 nor 1 never rounds to "0%" or "100%".
func pct0(rate float64) string {
	switch {
	case math.IsNaN(rate):
		return "-"
	case rate > 0 && rate < 0.005:
		return "<1%"
	case rate < 1 && rate > 0.995:
		return ">99%"
	}
	return strconv.FormatFloat(100*rate, 'f', 0, 64) + "%"
}

// rateOf is hits of runs as "43% (6/14)", or "no runs".
func rateOf(hits, runs int) string {
	if runs == 0 {
		return "no runs"
	}
	return fmt.Sprintf("%s (%d/%d)", pct0(float64(hits)/float64(runs)), hits, runs)
}

// pValue is a p-value for a table: two significant digits, "<0.001" below
// that, "-" when no test could be made.
func pValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return "-"
	case p < 0.001:
		return "<0.001"
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}

// pPhrase is a p-value in a sentence: "p = 0.008", "p < 0.001".
func pPhrase(p float64) string {
	switch {
	case math.IsNaN(p):
		return "no test possible"
	case p < 0.001:
		return "p < 0.001"
	}
	return "p = " + strconv.FormatFloat(p, 'g', 2, 64)
}

// deltaPoints is how many percentage points the sample rate is above the
// basis rate (below when negative), as v_regressions computes it; NaN when
// the sample has no runs.
func deltaPoints(v db.SymptomVerdict) float64 {
	basis := v.BasisRate
	if math.IsNaN(basis) {
		basis = 0
	}
	return math.Round(1000*(v.SampleRate-basis)) / 10
}

// counts is how many rows have each verdict, in verdictOrder: "2
// regression, 3 new, 12 none".
func counts(rows []db.SymptomVerdict) string {
	n := map[string]int{}
	for _, r := range rows {
		n[r.Verdict]++
	}
	var s string
	for _, v := range verdictOrder {
		if n[v] == 0 {
			continue
		}
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("%d %s", n[v], v)
	}
	return s
}

// verdictText is a verdict as a table or a chart writes it: "not enough
// runs" rather than a verdict where there were too few to have one.
func verdictText(v string) string {
	if v == analyze.VerdictInsufficient {
		return "not enough runs"
	}
	return v
}

// interval is the 95 % Wilson interval of hits in runs as percentages with
// one decimal, "21.4-67.4%"; "-" without runs.
func interval(hits, runs int) string {
	lo, hi := analyze.Wilson(hits, runs)
	if math.IsNaN(lo) {
		return "-"
	}
	return strconv.FormatFloat(100*lo, 'f', 1, 64) + "-" + strconv.FormatFloat(100*hi, 'f', 1, 64) + "%"
}

// interval0 is the interval in whole percentages, as a sentence says it:
// "95% CI 21-67%".
func interval0(hits, runs int) string {
	lo, hi := analyze.Wilson(hits, runs)
	if math.IsNaN(lo) {
		return ""
	}
	return "95% CI " + strconv.FormatFloat(100*lo, 'f', 0, 64) + "-" + strconv.FormatFloat(100*hi, 'f', 0, 64) + "%"
}

// rateCI is a rate with its interval, for a table: "42.9% (21.4-67.4%)".
func rateCI(hits, runs int) string {
	if runs == 0 {
		return "-"
	}
	return pct1(float64(hits)/float64(runs)) + " (" + interval(hits, runs) + ")"
}

// span is the dates of the first and last run of a side, "2026-11-02..2026-11-28",
// "-" without runs.
func span(from, to time.Time) string {
	switch {
	case from.IsZero() && to.IsZero():
		return "-"
	case from.IsZero():
		return "..." + to.UTC().Format(time.DateOnly)
	}
	return from.UTC().Format(time.DateOnly) + ".." + to.UTC().Format(time.DateOnly)
}
