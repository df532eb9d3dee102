package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// disruptionConflict merges two entries of one file with one backend name
// (a file can repeat a Name under two keys): they add up. (disruptionRows
// is the INSERT.)
const disruptionConflict = `ON CONFLICT (job, build_id, file, backend) DO UPDATE SET
	disrupted_s = CASE
		WHEN disrupted_s IS NULL THEN excluded.disrupted_s
		WHEN excluded.disrupted_s IS NULL THEN disrupted_s
		ELSE disrupted_s + excluded.disrupted_s
	END`

// disruptions stores a run's disruption rows; shared are the parameters
// each row of disruptionRows begins with.
func (w *writer) disruptions(shared []any, ds []prowcrawl.RunDisruption) error {
	for _, d := range ds {
		if d.File == "" || d.Backend == "" {
			return fmt.Errorf("disruption %q of %q: no file or no backend", d.Backend, d.File)
		}
		if !math.IsNaN(d.Seconds) && (d.Seconds < 0 || math.IsInf(d.Seconds, 0)) {
			return fmt.Errorf("disruption %s of %s: %v seconds", d.Backend, d.File, d.Seconds)
		}
		switch d.Source {
		case prowcrawl.DisruptionFromFile, prowcrawl.DisruptionFromEvents:
		default:
			return fmt.Errorf("disruption %s of %s: source %q", d.Backend, d.File, d.Source)
		}
	}
	if err := w.rows(qDisruptions, len(ds), shared, func(i int) {
		d := &ds[i]
		w.args = append(w.args, d.File, d.Backend, nullString(d.BackendName),
			nullString(d.Connection), nullFloat(d.Seconds), d.Source)
	}); err != nil {
		return fmt.Errorf("disruptions: %w", err)
	}
	return nil
}

// DisruptionStat is a row of disruption_stats: one backend's disruption in
// a scope key against its basis, in seconds per run. A statistic of a side
// without runs is NaN.
type DisruptionStat struct {
	Backend, Scope, Key, Comparison string
	SampleLabel, BasisLabel         string
	SampleRuns                      int
	SampleMedian, SampleP95         float64
	SampleMax                       float64
	BasisRuns                       int
	BasisMedian, BasisP95, BasisMax float64
	P95Delta                        float64 // sample P95 - basis P95
	Verdict                         string  // DisruptionWorse, DisruptionOK or DisruptionInsufficient
	ComputedAt                      time.Time
	// SampleFrom, SampleTo, BasisFrom and BasisTo are the starts of the
	// first and last run of each side (zero without runs); SampleValues
	// and BasisValues each run's seconds, when the computation kept them
	// (for a chart). disruption_stats stores none of them.
	SampleFrom, SampleTo, BasisFrom, BasisTo time.Time
	SampleValues, BasisValues                []float64
}

// The verdicts of disruption_stats.
const (
	DisruptionWorse        = "worse"
	DisruptionOK           = "ok"
	DisruptionInsufficient = "insufficient"
)

func insertDisruptionStats(ctx context.Context, tx *sql.Tx, stats []DisruptionStat, now string) (err error) {
	if _, err := tx.ExecContext(ctx, `DELETE FROM disruption_stats`); err != nil {
		return fmt.Errorf("clear disruption_stats: %w", err)
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO disruption_stats (backend, scope, scope_key, comparison,
	sample_label, basis_label, sample_runs, sample_median, sample_p95, sample_max,
	basis_runs, basis_median, basis_p95, basis_max, p95_delta_s, verdict, computed_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stmt.Close()) }()
	for _, s := range stats {
		if _, err := stmt.ExecContext(ctx, s.Backend, s.Scope, s.Key, s.Comparison, s.SampleLabel, s.BasisLabel,
			s.SampleRuns, nullFloat(s.SampleMedian), nullFloat(s.SampleP95), nullFloat(s.SampleMax),
			s.BasisRuns, nullFloat(s.BasisMedian), nullFloat(s.BasisP95), nullFloat(s.BasisMax),
			nullFloat(s.P95Delta), s.Verdict, now); err != nil {
			return fmt.Errorf("disruption %s %s %q %s: %w", s.Backend, s.Scope, s.Key, s.Comparison, err)
		}
	}
	return nil
}

// DisruptionStats reads disruption_stats for a scope key (all keys when key
// is empty) of scope, ordered by key, backend and comparison.
func (d *DB) DisruptionStats(ctx context.Context, scope, key string) ([]DisruptionStat, error) {
	q := `SELECT backend, scope, scope_key, comparison, sample_label, basis_label, sample_runs, sample_median, sample_p95, sample_max,
	basis_runs, basis_median, basis_p95, basis_max, p95_delta_s, verdict, computed_at
FROM disruption_stats WHERE scope = ?`
	args := []any{scope}
	if key != "" {
		q += ` AND scope_key = ?`
		args = append(args, key)
	}
	rows, err := d.db.QueryContext(ctx, q+` ORDER BY scope_key, backend, comparison`, args...)
	if err != nil {
		return nil, fmt.Errorf("disruption stats: %w", err)
	}
	defer rows.Close()
	var out []DisruptionStat
	for rows.Next() {
		var s DisruptionStat
		var sm, sp, sx, bm, bp, bx, delta sql.NullFloat64
		var at sql.NullString
		if err := rows.Scan(&s.Backend, &s.Scope, &s.Key, &s.Comparison, &s.SampleLabel, &s.BasisLabel, &s.SampleRuns, &sm, &sp, &sx,
			&s.BasisRuns, &bm, &bp, &bx, &delta, &s.Verdict, &at); err != nil {
			return nil, fmt.Errorf("disruption stats: %w", err)
		}
		s.SampleMedian, s.SampleP95, s.SampleMax = floatOrNaN(sm), floatOrNaN(sp), floatOrNaN(sx)
		s.BasisMedian, s.BasisP95, s.BasisMax = floatOrNaN(bm), floatOrNaN(bp), floatOrNaN(bx)
		s.P95Delta = floatOrNaN(delta)
		if s.ComputedAt, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("disruption stats: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("disruption stats: %w", err)
	}
	return out, nil
}
