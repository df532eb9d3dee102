package db

import "time"

// SymptomRate is an active symptom's rate in a scope key over the runs a
// page counts (a row of v_symptom_rates when nothing bounds them): computed
// by analyze from AnalysisCounts, the one source of a page's numbers.
type SymptomRate struct {
	Symptom, Scope, Key string
	FinishedRuns        int     // counted runs in the scope key (finished, upgrade begun or unknown)
	RunsWith            int     // of those, the runs showing the symptom
	FailedWith          int     // of those, the runs that failed
	PassedWith          int     // and the runs that passed anyway
	Rate                float64 // RunsWith / FinishedRuns; NaN without runs
	FailedRuns          int     // the counted runs that failed
	ShareOfFailures     float64 // FailedWith / FailedRuns; NaN without failed runs
	// LeftOut is how many finished runs of the key are not counted because
	// their upgrade never began.
	LeftOut int
	// First and Last are the start times of the first and last run counted.
	First, Last time.Time
	// Jobs is how many jobs the runs showing the symptom are of.
	Jobs int
}
