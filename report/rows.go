package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/db"
)

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

// counts is how many rows have each verdict, in analyze.VerdictOrder: "2
// regression, 3 new, 12 none".
func counts(rows []db.SymptomVerdict) string {
	n := map[string]int{}
	for _, r := range rows {
		n[r.Verdict]++
	}
	var s string
	for _, v := range analyze.VerdictOrder {
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

// The reasons a row has no verdict (analyze.VerdictInsufficient).
const (
	// reasonFewRuns: the sample or the basis has runs, but fewer than the
	// analysis needs.
	reasonFewRuns = "not enough runs"
	// reasonNoBasis: the basis has no counted run at all, so no number of
	// sample runs would give a verdict.
	reasonNoBasis = "no basis"
	// reasonNotClassified: runs the rule's current version has not read
	// yet (a rule added or changed after they were crawled) are missing
	// from a side; reclassify or backfill --refetch evaluates them.
	reasonNotClassified = "not classified yet"
)

// reason says why v has no verdict, with what it lacks: "no basis
// (4.11->4.12 minor never ran)" when its basis counted no run, "not enough
// runs" when a side has some, but too few, "not classified yet (14 runs;
// reclassify)" when the rule's current version has not read runs of it. A decided verdict has none: "".
// bounded says that only some runs were counted (--since, --until, --job),
// so an empty basis is empty in those bounds, not known never to have run.
func reason(v db.SymptomVerdict, bounded bool) string {
	if v.Verdict != analyze.VerdictInsufficient {
		return ""
	}
	switch {
	case v.SampleUnclassified > 0:
		return fmt.Sprintf("%s (%s; reclassify)", reasonNotClassified, plural(v.SampleUnclassified, "run"))
	case v.BasisUnclassified > 0 && v.BasisRuns < v.SampleRuns:
		return fmt.Sprintf("%s (%s of %s; reclassify)", reasonNotClassified, plural(v.BasisUnclassified, "run"), v.BasisLabel)
	}
	if m := basisMissing(v, bounded); m != "" {
		return reasonNoBasis + " (" + m + ")"
	}
	return reasonFewRuns
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

// verdictText is a verdict as a table writes it: the reason rather than a
// verdict where there is none.
func verdictText(v db.SymptomVerdict, bounded bool) string {
	if r := reason(v, bounded); r != "" {
		return r
	}
	return v.Verdict
}

// verdictShort is verdictText without what is missing, where a chart has
// room for a few words only: "no basis", "not enough runs".
func verdictShort(v db.SymptomVerdict) string {
	r := reason(v, false)
	switch {
	case r == "":
		return v.Verdict
	case strings.HasPrefix(r, reasonNoBasis):
		return reasonNoBasis
	case strings.HasPrefix(r, reasonNotClassified):
		return reasonNotClassified
	}
	return r
}

// shownRows splits d's rows into those the table and Markdown show and how
// many they hide: the rows with fewer counted sample runs than the
// analysis's minimum, whose rates say too little to be read.
func shownRows(d analyze.Table) (shown []db.SymptomVerdict, hidden int) {
	least := d.Query.Thresholds().MinRuns
	for _, v := range d.Rows {
		// A row whose runs the rule has not read yet is shown: it says
		// what to do.
		if v.SampleRuns < least && v.SampleUnclassified == 0 {
			hidden++
			continue
		}
		shown = append(shown, v)
	}
	return shown, hidden
}

// hiddenRows says, under a table, which rows it hid and how to see them;
// "" when it hid none.
func hiddenRows(d analyze.Table, hidden int) string {
	if hidden == 0 {
		return ""
	}
	return fmt.Sprintf("Hidden: %s with fewer than %d counted runs in the sample (--min-runs N sets this threshold, the verdicts' too; --format csv or json lists every row).",
		plural(hidden, "row"), d.Query.Thresholds().MinRuns)
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
