package analyze

import (
	"cmp"
	"context"
	"fmt"

	"github.com/openshift-eng/prowcrawl/db"
)

// TableQuery selects the rows of a verdict table. The zero value is every
// symptom by edge, over every run stored.
type TableQuery struct {
	// Selection is the runs counted and the thresholds.
	Selection
	// By is the scope of the rows: db.ScopeEdge (the default), ScopeJob,
	// ScopeVariant or ScopePresubmit. Edges and variants are compared
	// release against release; jobs and presubmits window against window.
	By string
	// Symptom keeps one symptom.
	Symptom string
	// Trend also computes each symptom's weekly rates, the disruption
	// comparisons and the open regressions, for the HTML page.
	Trend bool
}

// Scope is q.By, db.ScopeEdge when it is unset.
func (q TableQuery) Scope() string { return cmp.Or(q.By, db.ScopeEdge) }

// ComparisonOf is the comparison a table shows for a scope: jobs have no
// release of their own, so they are compared window against window; edges
// and variants release against release.
func ComparisonOf(scope string) string {
	if scope == db.ScopeJob || scope == db.ScopePresubmit {
		return db.CompareWindow
	}
	return db.CompareRelease
}

// Table is what a verdict table shows, computed for the runs its query
// selects.
type Table struct {
	Query TableQuery
	// Symptoms are the active symptoms, for their titles.
	Symptoms []db.Symptom
	// Rows are the verdicts of the scope's comparison, in report order
	// (SortVerdicts).
	Rows []db.SymptomVerdict
	// Weekly is each symptom's rate per edge and week, when Query.Trend
	// asked for it.
	Weekly map[string][]db.WeeklyRate
	// Window is the time comparison's windows, "S against B".
	Window string
	// Disruption and Open are, with Query.Trend, every key's disruption
	// comparisons, counted from the same runs, and the open regressions
	// (of Query.Symptom when set).
	Disruption []db.DisruptionStat
	Open       []db.Regression
	// Onsets are, with Query.Trend, the onsets of the open regressions
	// (RegressionOnsets, by OnsetKey).
	Onsets map[string]Change
	// Runs are the runs the query selects, by population: the page says
	// how many it left out of every rate, and why (prowcrawl.LeftOut).
	Runs db.RunTally
}

// LoadTable computes, for the runs q selects, the verdicts q asks for, and
// with q.Trend the weekly rates, the disruption comparisons and the open
// regressions.
func LoadTable(ctx context.Context, store *db.DB, q TableQuery) (Table, error) {
	t := Table{Query: q}
	syms, err := ActiveSymptoms(ctx, store, q.Symptom)
	if err != nil {
		return t, err
	}
	t.Symptoms = syms
	res, err := Window(ctx, store, q.Selection, Query{Weeks: q.Trend, Disruption: q.Trend})
	if err != nil {
		return t, err
	}
	t.Window = res.SampleWindow + " against " + res.BasisWindow
	if t.Runs, err = q.Tally(ctx, store); err != nil {
		return t, err
	}
	titles := map[string]db.Symptom{}
	for _, s := range syms {
		titles[s.ID] = s
	}
	for _, v := range res.Verdicts {
		if v.Scope != q.Scope() || v.Comparison != ComparisonOf(v.Scope) || q.Symptom != "" && v.Symptom != q.Symptom {
			continue
		}
		v.Title, v.Bug = titles[v.Symptom].Title, titles[v.Symptom].Bug
		t.Rows = append(t.Rows, v)
	}
	SortVerdicts(t.Rows)
	if !q.Trend {
		return t, nil
	}
	t.Weekly = map[string][]db.WeeklyRate{}
	for id, w := range res.Weekly {
		if q.Symptom == "" || id == q.Symptom {
			t.Weekly[id] = w
		}
	}
	t.Disruption = res.Disruption
	regs, err := store.Regressions(ctx, db.RegressionOpen)
	if err != nil {
		return t, fmt.Errorf("analyze: %w", err)
	}
	for _, r := range regs {
		if q.Symptom == "" || r.Symptom == q.Symptom {
			t.Open = append(t.Open, r)
		}
	}
	if t.Onsets, err = RegressionOnsets(ctx, store, t.Open); err != nil {
		return t, err
	}
	return t, nil
}
