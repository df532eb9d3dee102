package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/assess"
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

// rateOf is hits of runs as "43% (6/14)", or "no runs".
func rateOf(hits, runs int) string {
	if runs == 0 {
		return "no runs"
	}
	return fmt.Sprintf("%s (%d/%d)", assess.Percent(float64(hits)/float64(runs)), hits, runs)
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

// verdictText is a verdict as a table writes it: the reason rather than a
// verdict where there is none.
func verdictText(v db.SymptomVerdict, bounded bool) string {
	if r := assess.Reason(v, bounded); r != "" {
		return r
	}
	return v.Verdict
}

// verdictShort is verdictText without what is missing, where a chart has
// room for a few words only: "no basis", "not enough runs".
func verdictShort(v db.SymptomVerdict) string {
	r := assess.Reason(v, false)
	switch {
	case r == "":
		return v.Verdict
	case strings.HasPrefix(r, assess.ReasonNoBasis):
		return assess.ReasonNoBasis
	case strings.HasPrefix(r, assess.ReasonNotClassified):
		return assess.ReasonNotClassified
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
		assess.Plural(hidden, "row"), d.Query.Thresholds().MinRuns)
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

// rateCI is a rate with its interval, for a table: "42.9% (21.4-67.4%)".
func rateCI(hits, runs int) string {
	if runs == 0 {
		return "-"
	}
	return pct1(float64(hits)/float64(runs)) + " (" + interval(hits, runs) + ")"
}
