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

// hiddenCount is how many rows a table or Markdown left out, and why.
type hiddenCount struct {
	// Few have fewer counted sample runs than the analysis's minimum:
	// their rates say too little to be read.
	Few int
	// Quiet are rows where no counted run of either side shows the
	// symptom, and no verdict says more than that.
	Quiet int
}

func (h hiddenCount) any() bool { return h.Few+h.Quiet > 0 }

// shownRows splits d's rows into those the table and Markdown show and how
// many they hide (every row when all is set).
func shownRows(d analyze.Table, all bool) (shown []db.SymptomVerdict, hidden hiddenCount) {
	least := d.Query.Thresholds().MinRuns
	for _, v := range d.Rows {
		switch {
		case all || v.SampleUnclassified > 0:
			// A row whose runs the rule has not read yet is shown: it
			// says what to do.
		case v.SampleRuns < least:
			hidden.Few++
			continue
		case v.SampleHits == 0 && v.BasisHits == 0 && (v.Verdict == analyze.VerdictNone || v.Verdict == analyze.VerdictInsufficient):
			hidden.Quiet++
			continue
		}
		shown = append(shown, v)
	}
	return shown, hidden
}

// hiddenRows says, under a table, which rows it hid and how to see them;
// "" when it hid none.
func hiddenRows(d analyze.Table, h hiddenCount) string {
	var parts []string
	if h.Few > 0 {
		parts = append(parts, fmt.Sprintf("%s with fewer than %d counted runs in the sample (--min-runs N sets this threshold, the verdicts' too)",
			assess.Plural(h.Few, "row"), d.Query.Thresholds().MinRuns))
	}
	if h.Quiet > 0 {
		parts = append(parts, assess.Plural(h.Quiet, "row")+" where no counted run shows the symptom")
	}
	if len(parts) == 0 {
		return ""
	}
	return "Hidden: " + strings.Join(parts, "; ") + ". Every row: --all, or --format csv or json."
}

// narrowHeaders are the columns of a table that fits a terminal: the
// symptom, the scope, each side's hits of runs with its rate and
// interval, p and the verdict.
func narrowHeaders(scope string) []string {
	return []string{"SYMPTOM", scopeTitle(scope), "SAMPLE (95% CI)", "BASIS (95% CI)", "P", "VERDICT"}
}

// narrowCells are v's cells in narrowHeaders' columns; bounded is
// Selection.Bounded, for the reason of a row without a verdict.
func narrowCells(v db.SymptomVerdict, bounded bool) []string {
	verdict := verdictText(v, bounded)
	if strings.HasPrefix(verdict, assess.ReasonNoBasis) {
		verdict = assess.ReasonNoBasis // the basis's column says no runs
	}
	return []string{v.Symptom, v.Key, hitsRate(v.SampleHits, v.SampleRuns), hitsRate(v.BasisHits, v.BasisRuns), pValue(v.P), verdict}
}

// hitsRate is hits of runs with the rate and its 95 % Wilson interval in
// whole percents: "6/14 43% (21-67%)"; "no runs".
func hitsRate(hits, runs int) string {
	if runs == 0 {
		return "no runs"
	}
	lo, hi := analyze.Wilson(hits, runs)
	return fmt.Sprintf("%d/%d %s (%s-%s)", hits, runs, assess.Percent(float64(hits)/float64(runs)),
		strconv.FormatFloat(100*lo, 'f', 0, 64), strconv.FormatFloat(100*hi, 'f', 0, 64)+"%")
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
