package assess

import (
	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/db"
)

// Row is a verdict as the CSV and JSON formats write it. The field names are
// the columns of symptom_verdicts (and delta_points of v_regressions), so
// that a script reads the same names from a report and from the database.
// Rates are fractions; a rate or p-value that does not exist is null (an
// empty CSV field). These names are stable: add fields, never rename them.
//
// Sides and Margins are the numbers of the comparison, which a Finding of
// an assessment holds too.
type Row struct {
	SymptomID  string `json:"symptom_id"`
	Title      string `json:"title"`
	Scope      string `json:"scope"`
	ScopeKey   string `json:"scope_key"`
	Comparison string `json:"comparison"`
	Sides
	DeltaPoints *float64 `json:"delta_points"`
	PValue      *float64 `json:"p_value"`
	Verdict     string   `json:"verdict"`
	Bug         string   `json:"bug"`
	// Reason says why a row's verdict is insufficient: "no basis
	// (4.11->4.12 minor never ran)" or "not enough runs"; "" for a verdict.
	Reason string `json:"reason"`
	Margins
	// The finished runs of each side that the rule's current version has
	// not read yet: counted neither as showing it nor as not.
	SampleUnclassified int `json:"sample_unclassified"`
	BasisUnclassified  int `json:"basis_unclassified"`
}

// Sides are the two sides of a comparison: each one's label, counted runs,
// runs showing the symptom, and rate.
type Sides struct {
	SampleLabel string   `json:"sample_label"`
	SampleRuns  int      `json:"sample_runs"`
	SampleHits  int      `json:"sample_hits"`
	SampleRate  *float64 `json:"sample_rate"`
	BasisLabel  string   `json:"basis_label"`
	BasisRuns   int      `json:"basis_runs"`
	BasisHits   int      `json:"basis_hits"`
	BasisRate   *float64 `json:"basis_rate"`
}

// Margins are the 95 % Wilson intervals of the two sides' rates, the dates
// (RFC 3339) of the first and last run counted on each side, and the
// finished runs each side left out because their upgrade never began.
type Margins struct {
	SampleRateLow  *float64 `json:"sample_rate_low"`
	SampleRateHigh *float64 `json:"sample_rate_high"`
	BasisRateLow   *float64 `json:"basis_rate_low"`
	BasisRateHigh  *float64 `json:"basis_rate_high"`
	SampleFrom     string   `json:"sample_from"`
	SampleTo       string   `json:"sample_to"`
	BasisFrom      string   `json:"basis_from"`
	BasisTo        string   `json:"basis_to"`
	SampleLeftOut  int      `json:"sample_left_out"`
	BasisLeftOut   int      `json:"basis_left_out"`
}

// RowOf is v as a Row. Floats are rounded to six significant digits: the
// last bits of a p-value differ between machines, a report must not.
// bounded is Selection.Bounded, for the reason of a row without a verdict.
func RowOf(v db.SymptomVerdict, bounded bool) Row {
	slo, shi := analyze.Wilson(v.SampleHits, v.SampleRuns)
	blo, bhi := analyze.Wilson(v.BasisHits, v.BasisRuns)
	return Row{
		SymptomID: v.Symptom, Title: v.Title, Scope: v.Scope, ScopeKey: v.Key, Comparison: v.Comparison,
		Sides: Sides{SampleLabel: v.SampleLabel, SampleRuns: v.SampleRuns, SampleHits: v.SampleHits, SampleRate: Round6(v.SampleRate),
			BasisLabel: v.BasisLabel, BasisRuns: v.BasisRuns, BasisHits: v.BasisHits, BasisRate: Round6(v.BasisRate)},
		DeltaPoints: Round6(deltaPoints(v)), PValue: Round6(v.P), Verdict: v.Verdict, Bug: v.Bug, Reason: Reason(v, bounded),
		Margins: Margins{SampleRateLow: Round6(slo), SampleRateHigh: Round6(shi), BasisRateLow: Round6(blo), BasisRateHigh: Round6(bhi),
			SampleFrom: RFC3339(v.SampleFrom), SampleTo: RFC3339(v.SampleTo), BasisFrom: RFC3339(v.BasisFrom), BasisTo: RFC3339(v.BasisTo),
			SampleLeftOut: v.SampleLeftOut, BasisLeftOut: v.BasisLeftOut},
		SampleUnclassified: v.SampleUnclassified, BasisUnclassified: v.BasisUnclassified,
	}
}
