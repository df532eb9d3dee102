package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

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
	// LeftOut is how many finished runs of the key are counted apart: their
	// upgrade never began, or they failed for CI's infrastructure (Infra of
	// them).
	LeftOut, Infra int
	// Unclassified is how many finished runs of the key the rule's current
	// version has not read yet: not counted, neither as showing the
	// symptom nor as not showing it.
	Unclassified int
	// First and Last are the start times of the first and last run counted.
	First, Last time.Time
	// Jobs is how many jobs the runs showing the symptom are of, and
	// OnlyJob the job when that is one.
	Jobs    int
	OnlyJob string
}

// ViewRates reads v_symptom_rates, the rates analysts read with sqlite3,
// for one symptom (all when empty), ordered by symptom, scope and key: the
// SQL side of the tests that the views and analyze count the same runs.
func (d *DB) ViewRates(ctx context.Context, symptom string) ([]SymptomRate, error) {
	out, err := queryList(ctx, d.db, func(rows *sql.Rows) (SymptomRate, error) {
		var r SymptomRate
		var rate, share sql.NullFloat64
		err := rows.Scan(&r.Symptom, &r.Scope, &r.Key, &r.FinishedRuns, &r.RunsWith, &r.FailedWith, &r.PassedWith,
			&rate, &r.FailedRuns, &share, &r.LeftOut, &r.Infra)
		r.Rate, r.ShareOfFailures = floatOrNaN(rate), floatOrNaN(share)
		return r, err
	}, `SELECT symptom, scope, scope_key, finished_runs, runs_with, failed_with,
	passed_with, rate, failed_runs, share_of_failures, left_out, infrastructure
FROM v_symptom_rates WHERE ? = '' OR symptom = ?
ORDER BY symptom, scope, scope_key`, symptom, symptom)
	if err != nil {
		return nil, fmt.Errorf("view rates: %w", err)
	}
	return out, nil
}

// WeeklyRate is a symptom's rate on an edge over one ISO week, or over
// several consecutive weeks merged because one alone held too few runs to
// show as a point of a trend (From and To are then their Mondays).
type WeeklyRate struct {
	Edge      string
	Week      string    // the ISO week, "2026-W47", or the first and last of merged weeks, "2026-W45..W47"
	WeekStart time.Time // its Monday, 00:00 UTC (the first week's when merged)
	WeekEnd   time.Time // the Monday after the last week
	Runs      int       // counted runs started in those weeks
	Hits      int       // of those, the runs showing the symptom
	Rate      float64   // Hits / Runs
}
