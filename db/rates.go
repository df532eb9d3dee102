package db

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
)

// SymptomRate is a row of v_symptom_rates: an active symptom's rate in a
// scope key.
type SymptomRate struct {
	Symptom, Scope, Key string
	FinishedRuns        int     // finished runs in the scope key
	RunsWith            int     // of those, the runs showing the symptom
	FailedWith          int     // of those, the runs that failed
	PassedWith          int     // and the runs that passed anyway
	Rate                float64 // RunsWith / FinishedRuns
	FailedRuns          int     // the finished runs that failed
	ShareOfFailures     float64 // FailedWith / FailedRuns; NaN without failed runs
}

// symptomRatesQuery is v_symptom_rates with f's conditions written inside
// each arm, where SQLite can use an index for them, including those on runs
// (Job, Since) that the view has no column for. Each arm first groups the
// runs (and the matches) by job and run edge, the runs in the order of
// runs_analysis (no sort), then sums those few groups into the scope's
// keys: the variants of a million runs are counted without reading the
// table or sorting every run.
func symptomRatesQuery(f Filter) (string, []any) {
	var runs where // the conditions on runs r
	if f.Job != "" {
		runs.add(`r.job = ?`, f.Job)
	}
	if !f.Since.IsZero() {
		runs.add(`r.started_at >= ?`, formatTime(f.Since))
	}
	arms := []struct {
		scope, key, join, cond string
		// keyCond is the condition of a key on runs r, when the key can
		// be looked up in an index of runs; else the key is kept after
		// the groups are summed.
		keyCond string
	}{
		{ScopeJob, `g.job`, ``, ``, `r.job = ?`},
		{ScopeEdge, edgeSQL("g"), ``, ` AND r.release IS NOT NULL`, `r.edge = ?`},
		{ScopeVariant, variantSQL(edgeSQL("g"), "j"),
			` JOIN jobs j ON j.name = g.job`, ` AND r.release IS NOT NULL`, ``},
	}
	var parts []string
	var args []any
	for _, a := range arms {
		if f.Scope != "" && f.Scope != a.scope {
			continue
		}
		cond := `+` + countedRun + a.cond + runs.sql()
		condArgs := slices.Clone(runs.args)
		// runs_analysis is read in the order of the grouping, and covers
		// it; an edge is looked up in runs_edge instead.
		index, having := ` INDEXED BY runs_analysis`, ``
		var havingArgs []any
		if f.Key != "" {
			if a.keyCond != "" {
				cond += ` AND ` + a.keyCond
				condArgs = append(condArgs, f.Key)
				if a.scope == ScopeEdge {
					index = ``
				}
			} else {
				having = ` HAVING scope_key = ?`
				havingArgs = append(havingArgs, f.Key)
			}
		}
		symptom, hit := ``, ``
		if f.Symptom != "" {
			symptom, hit = ` AND s.id = ?`, ` AND rs.symptom_id = ?`
		}
		parts = append(parts, `SELECT s.id, '`+a.scope+`', t.scope_key, t.finished_runs,
	coalesce(h.runs_with, 0), coalesce(h.failed_with, 0), t.failed_runs
FROM (
	SELECT `+a.key+` AS scope_key, sum(g.finished_runs) AS finished_runs, sum(g.failed_runs) AS failed_runs
	FROM (
		SELECT r.job, r.release, r.from_release, r.upgrade, count(*) AS finished_runs, sum(r.result <> 'success') AS failed_runs
		FROM runs r`+index+`
		WHERE `+cond+`
		GROUP BY r.job, r.release, r.from_release, r.upgrade
	) g`+a.join+`
	GROUP BY 1`+having+`
) t
JOIN symptoms s ON s.active = 1`+symptom+`
LEFT JOIN (
	SELECT g.symptom_id, `+a.key+` AS scope_key, sum(g.runs_with) AS runs_with, sum(g.failed_with) AS failed_with
	FROM (
		SELECT rs.symptom_id, r.job, r.release, r.from_release, r.upgrade,
			count(*) AS runs_with, sum(r.result <> 'success') AS failed_with
		FROM run_symptoms rs JOIN runs r INDEXED BY runs_key ON r.job = rs.job AND r.build_id = rs.build_id
		WHERE `+cond+hit+`
		GROUP BY 1, 2, 3, 4, 5
	) g`+a.join+`
	GROUP BY 1, 2
) h ON h.symptom_id = s.id AND h.scope_key = t.scope_key`)
		args = append(args, condArgs...)
		args = append(args, havingArgs...)
		if f.Symptom != "" {
			args = append(args, f.Symptom)
		}
		args = append(args, condArgs...)
		if f.Symptom != "" {
			args = append(args, f.Symptom)
		}
	}
	return strings.Join(parts, "\nUNION ALL\n") + "\nORDER BY 1, 2, 3", args
}

// SymptomRates returns what v_symptom_rates holds, narrowed by f before
// counting (so Since and Job change the counts), ordered by symptom, scope
// and key.
func (d *DB) SymptomRates(ctx context.Context, f Filter) ([]SymptomRate, error) {
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("symptom rates: %w", err)
	}
	query, args := symptomRatesQuery(f)
	rows, err := d.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("symptom rates: %w", err)
	}
	defer rows.Close()
	var out []SymptomRate
	for rows.Next() {
		var r SymptomRate
		if err := rows.Scan(&r.Symptom, &r.Scope, &r.Key, &r.FinishedRuns, &r.RunsWith, &r.FailedWith,
			&r.FailedRuns); err != nil {
			return nil, fmt.Errorf("symptom rates: %w", err)
		}
		r.PassedWith = r.RunsWith - r.FailedWith
		r.Rate = float64(r.RunsWith) / float64(r.FinishedRuns)
		r.ShareOfFailures = math.NaN()
		if r.FailedRuns > 0 {
			r.ShareOfFailures = float64(r.FailedWith) / float64(r.FailedRuns)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("symptom rates: %w", err)
	}
	return out, nil
}
