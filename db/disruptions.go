package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
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
	out, err := queryList(ctx, d.db, func(rows *sql.Rows) (DisruptionStat, error) {
		var s DisruptionStat
		var sm, sp, sx, bm, bp, bx, delta sql.NullFloat64
		var at sql.NullString
		if err := rows.Scan(&s.Backend, &s.Scope, &s.Key, &s.Comparison, &s.SampleLabel, &s.BasisLabel, &s.SampleRuns, &sm, &sp, &sx,
			&s.BasisRuns, &bm, &bp, &bx, &delta, &s.Verdict, &at); err != nil {
			return s, err
		}
		s.SampleMedian, s.SampleP95, s.SampleMax = floatOrNaN(sm), floatOrNaN(sp), floatOrNaN(sx)
		s.BasisMedian, s.BasisP95, s.BasisMax = floatOrNaN(bm), floatOrNaN(bp), floatOrNaN(bx)
		s.P95Delta = floatOrNaN(delta)
		var err error
		s.ComputedAt, err = parseTime(at)
		return s, err
	}, q+` ORDER BY scope_key, backend, comparison`, args...)
	if err != nil {
		return nil, fmt.Errorf("disruption stats: %w", err)
	}
	return out, nil
}

// DisruptionSample is Runs finished runs' disruption of one backend, their
// files summed, on an edge where a symptom shows, and whether they show it.
type DisruptionSample struct {
	Backend, Edge string
	Shows         bool
	Seconds       float64 // NaN when no file gave a duration
	Runs          int     // how many runs had these seconds
}

// DisruptionCell counts the counted runs of one job on one edge, started
// on one day, whose total of one backend was Seconds (NaN: no file gave a
// duration): the runs, and those in the sample and the basis windows, with
// the first and last start of each.
type DisruptionCell struct {
	Backend                       string
	Job                           string
	Release, FromRelease, Upgrade string
	Seconds                       float64
	Runs, Sample, Basis           int
	// First and Last are of all the cell's runs, SampleFirst to BasisLast
	// of those in each window (zero without any).
	First, Last                                    time.Time
	SampleFirst, SampleLast, BasisFirst, BasisLast time.Time
}

// DisruptionCells calls fn with the disruption of the runs within b (every
// run when b is zero), by day, job, edge, backend and total: one cell per
// distinct total, not per run. sample and basis are the windows of the time
// comparison. Totals no file gave a duration are left out. The whole days
// come from disruption_days (migration 0019); the days where b or a window
// begins or ends, which it holds only in part, from the runs' totals.
func (d *DB) DisruptionCells(ctx context.Context, b Bounds, sample, basis Window, fn func(DisruptionCell) error) (err error) {
	tx, err := d.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("disruption cells: %w", err)
	}
	defer func() { err = errors.Join(err, rollback(tx)) }()
	// The days cut by an end; as JSON, for json_each.
	day := func(t time.Time) string { return t.UTC().Format(time.DateOnly) }
	cut := map[string]bool{}
	for _, t := range []time.Time{b.Since, b.Until, sample.From, sample.To, basis.From, basis.To} {
		if !t.IsZero() && (b.Since.IsZero() || day(t) >= day(b.Since)) && (b.Until.IsZero() || day(t) <= day(b.Until)) {
			cut[day(t)] = true
		}
	}
	cutJSON, err := json.Marshal(slices.Sorted(maps.Keys(cut)))
	if err != nil {
		return fmt.Errorf("disruption cells: %w", err)
	}
	// A whole day is in a window when it lies between the window's days.
	within := func(dd string, w Window) bool {
		return !w.From.IsZero() && !w.To.IsZero() && dd > day(w.From) && dd < day(w.To)
	}

	var w where
	if !b.Since.IsZero() {
		w.add(`d.day >= ?`, day(b.Since))
	}
	if !b.Until.IsZero() {
		w.add(`d.day <= ?`, day(b.Until))
	}
	if b.Jobs != nil {
		jobs, err := json.Marshal(b.Jobs)
		if err != nil {
			return fmt.Errorf("disruption cells: %w", err)
		}
		w.add(`d.job IN (SELECT value FROM json_each(?))`, string(jobs))
	}
	w.add(`d.day NOT IN (SELECT value FROM json_each(?))`, string(cutJSON))
	rows, err := tx.QueryContext(ctx, `SELECT d.day, d.backend, d.job, d.release, d.from_release, d.upgrade, d.disrupted_s, d.runs, d.first, d.last
FROM disruption_days d
WHERE true`+w.sql(), w.args...)
	if err != nil {
		return fmt.Errorf("disruption cells: %w", err)
	}
	for rows.Next() {
		var c DisruptionCell
		var dd string
		var first, last sql.NullString
		if err := rows.Scan(&dd, &c.Backend, &c.Job, &c.Release, &c.FromRelease, &c.Upgrade, &c.Seconds, &c.Runs, &first, &last); err != nil {
			rows.Close()
			return fmt.Errorf("disruption cells: %w", err)
		}
		if c.First, err = parseTime(first); err == nil {
			c.Last, err = parseTime(last)
		}
		if err != nil {
			rows.Close()
			return fmt.Errorf("disruption cells: %w", err)
		}
		if within(dd, sample) {
			c.Sample, c.SampleFirst, c.SampleLast = c.Runs, c.First, c.Last
		}
		if within(dd, basis) {
			c.Basis, c.BasisFirst, c.BasisLast = c.Runs, c.First, c.Last
		}
		if err := fn(c); err != nil {
			rows.Close()
			return err
		}
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("disruption cells: %w", err)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("disruption cells: %w", err)
	}

	// The cut days, from the runs' totals of each.
	t := onCopies("t")
	cond, args, err := b.whereOn(t)
	if err != nil {
		return fmt.Errorf("disruption cells: %w", err)
	}
	inS, inB := t.in("?1", "?2"), t.in("?3", "?4")
	rows, err = tx.QueryContext(ctx, `SELECT t.backend, t.job, `+t.edge()+`, t.disrupted_s,
	count(*), count(CASE WHEN `+inS+` THEN 1 END), count(CASE WHEN `+inB+` THEN 1 END),
	min(t.run_started_at), max(t.run_started_at),
	min(CASE WHEN `+inS+` THEN t.run_started_at END), max(CASE WHEN `+inS+` THEN t.run_started_at END),
	min(CASE WHEN `+inB+` THEN t.run_started_at END), max(CASE WHEN `+inB+` THEN t.run_started_at END)
FROM json_each(?5) AS cut
CROSS JOIN run_disruption_totals t INDEXED BY run_disruption_totals_days ON `+t.day()+` = cut.value
WHERE t.disrupted_s IS NOT NULL AND `+t.counted()+` AND `+t.started()+cond+`
GROUP BY cut.value, t.job, t.run_release, t.run_from_release, t.run_upgrade, t.backend, t.disrupted_s`,
		append([]any{formatTime(sample.From), formatTime(sample.To), formatTime(basis.From), formatTime(basis.To), string(cutJSON)}, args...)...)
	if err != nil {
		return fmt.Errorf("disruption cells: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c DisruptionCell
		var times [6]sql.NullString
		if err := rows.Scan(&c.Backend, &c.Job, &c.Release, &c.FromRelease, &c.Upgrade, &c.Seconds, &c.Runs, &c.Sample, &c.Basis,
			&times[0], &times[1], &times[2], &times[3], &times[4], &times[5]); err != nil {
			return fmt.Errorf("disruption cells: %w", err)
		}
		for i, dst := range []*time.Time{&c.First, &c.Last, &c.SampleFirst, &c.SampleLast, &c.BasisFirst, &c.BasisLast} {
			if *dst, err = parseTime(times[i]); err != nil {
				return fmt.Errorf("disruption cells: %w", err)
			}
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("disruption cells: %w", err)
	}
	return rows.Close()
}

// SymptomDisruption counts, for every backend, edge and total, the runs
// within b that show symptom and count in its rates (finished, their
// upgrade begun or not known not to have, of a job that is no presubmit):
// the runs of SymptomRuns, from run_symptoms_days and
// run_disruption_totals. A cell's times are not read (zero).
func (d *DB) SymptomDisruption(ctx context.Context, symptom string, b Bounds) ([]DisruptionCell, error) {
	c := onCopies("rs")
	cond, args, err := b.whereDays(c)
	if err != nil {
		return nil, fmt.Errorf("disruption of %s: %w", symptom, err)
	}
	out, err := queryList(ctx, d.db, func(rows *sql.Rows) (DisruptionCell, error) {
		var t DisruptionCell
		var secs sql.NullFloat64
		err := rows.Scan(&t.Backend, &t.Release, &t.FromRelease, &t.Upgrade, &secs, &t.Runs)
		t.Seconds = floatOrNaN(secs)
		return t, err
	}, `SELECT t.backend, `+onCopies("t").edge()+`, t.disrupted_s, count(*)
FROM run_symptoms rs INDEXED BY run_symptoms_days
CROSS JOIN run_disruption_totals t ON t.job = rs.job AND t.build_id = rs.build_id
WHERE rs.symptom_id = ? AND `+c.counted()+` AND `+c.started()+`
	AND rs.job NOT IN (SELECT name FROM jobs WHERE type = 'presubmit')`+cond+`
GROUP BY 1, 2, 3, 4, 5`, append([]any{symptom}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("disruption of %s: %w", symptom, err)
	}
	return out, nil
}
