package assess

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/db"
)

// The words of numbers, which the assessment's answers and the writers'
// tables share: one way to say a rate, a p-value, an interval or a date.

// Percent is a rate as a whole percentage, as people say it: "43%". A rate
// that is neither 0 nor 1 never rounds to "0%" or "100%".
func Percent(rate float64) string {
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

// PPhrase is a p-value in a sentence: "p = 0.008", "p < 0.001".
func PPhrase(p float64) string {
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

// The reasons a row has no verdict (analyze.VerdictInsufficient).
const (
	// ReasonFewRuns: the sample or the basis has runs, but fewer than the
	// analysis needs.
	ReasonFewRuns = "not enough runs"
	// ReasonNoBasis: the basis has no counted run at all, so no number of
	// sample runs would give a verdict.
	ReasonNoBasis = "no basis"
	// ReasonNotClassified: runs the rule's current version has not read
	// yet (a rule added or changed after they were crawled) are missing
	// from a side; reclassify or backfill --refetch evaluates them.
	ReasonNotClassified = "not classified yet"
)

// Reason says why v has no verdict, with what it lacks: "no basis
// (4.11->4.12 minor never ran)" when its basis counted no run, "not enough
// runs" when a side has some, but too few, "not classified yet (14 runs;
// reclassify)" when the rule's current version has not read runs of it. A decided verdict has none: "".
// bounded says that only some runs were counted (--since, --until, --job),
// so an empty basis is empty in those bounds, not known never to have run.
func Reason(v db.SymptomVerdict, bounded bool) string {
	if v.Verdict != analyze.VerdictInsufficient {
		return ""
	}
	switch {
	case v.SampleUnclassified > 0:
		return fmt.Sprintf("%s (%s; reclassify)", ReasonNotClassified, Plural(v.SampleUnclassified, "run"))
	case v.BasisUnclassified > 0 && v.BasisRuns < v.SampleRuns:
		return fmt.Sprintf("%s (%s of %s; reclassify)", ReasonNotClassified, Plural(v.BasisUnclassified, "run"), v.BasisLabel)
	}
	if m := basisMissing(v, bounded); m != "" {
		return ReasonNoBasis + " (" + m + ")"
	}
	return ReasonFewRuns
}

// basisMissing says how v's basis has no counted run: "4.11->4.12 minor
// never ran"; "" when it has some.
func basisMissing(v db.SymptomVerdict, bounded bool) string {
	switch {
	case v.BasisRuns > 0:
		return ""
	case v.Comparison == db.CompareWindow:
		return "no counted run in " + v.BasisLabel
	case v.BasisLeftOut > 0:
		return "no " + v.BasisLabel + " run whose upgrade began"
	case bounded:
		return "no counted " + v.BasisLabel + " run"
	}
	return v.BasisLabel + " never ran"
}

// Interval is the interval in whole percentages, as a sentence says it:
// "95% CI 21-67%".
func Interval(hits, runs int) string {
	lo, hi := analyze.Wilson(hits, runs)
	if math.IsNaN(lo) {
		return ""
	}
	return "95% CI " + strconv.FormatFloat(100*lo, 'f', 0, 64) + "-" + strconv.FormatFloat(100*hi, 'f', 0, 64) + "%"
}

// Span is the dates of the first and last run of a side, "2026-11-02..2026-11-28",
// "-" without runs.
func Span(from, to time.Time) string {
	switch {
	case from.IsZero() && to.IsZero():
		return "-"
	case from.IsZero():
		return "..." + to.UTC().Format(time.DateOnly)
	}
	return from.UTC().Format(time.DateOnly) + ".." + to.UTC().Format(time.DateOnly)
}

// Plural is "1 row", "2 rows".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Days is "1 day", "2 days".
func Days(n int) string {
	if n == 1 {
		return "1 day"
	}
	return fmt.Sprintf("%d days", n)
}

// RFC3339 is t as stored, "" for the zero time.
func RFC3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// Round6 is f to six significant digits, nil for NaN.
func Round6(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 6, 64), 64)
	return &r
}

// Secs is seconds with at most one decimal: "2 s", "1.5 s".
func Secs(s float64) string {
	if math.IsNaN(s) {
		return "-"
	}
	return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", s), "0"), ".") + " s"
}
