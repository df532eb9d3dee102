package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"
)

// SymptomVerdict is a row of symptom_verdicts: a symptom in a scope key,
// its sample against a basis, and the verdict. A rate is NaN (NULL) when its
// side has no runs; P is NaN when either side has none.
type SymptomVerdict struct {
	Symptom    string
	Scope      string // job, edge, variant or presubmit
	Key        string // the job name, edge or variant
	Comparison string // release or window
	// SampleLabel and BasisLabel name what was compared: two edges or
	// variants (release), or two date ranges (window).
	SampleLabel, BasisLabel string
	SampleRuns, SampleHits  int
	BasisRuns, BasisHits    int
	SampleRate, BasisRate   float64
	// P is the one-sided Fisher exact p in the direction the sample moved.
	P       float64
	Verdict string
	// ComputedAt is when the analysis ran; ReplaceAnalysis stores the time
	// of the call when it is zero.
	ComputedAt time.Time
	// SampleFrom, SampleTo, BasisFrom and BasisTo are the start times of
	// the first and last run counted on each side (zero without runs).
	SampleFrom, SampleTo, BasisFrom, BasisTo time.Time
	// SampleLeftOut and BasisLeftOut are the finished runs of each side not
	// counted because their upgrade never began.
	SampleLeftOut, BasisLeftOut int
	// SampleUnclassified and BasisUnclassified are the finished runs of
	// each side that the rule's current version has not read yet: not
	// counted, and "not classified yet" where there is nothing else.
	SampleUnclassified, BasisUnclassified int

	// Title and Bug are the symptom's, filled by Verdicts; ReplaceAnalysis
	// ignores them.
	Title, Bug string
}

// TestFlakeRate is a row of test_flake_rates: how often a test flaked in a
// scope key, over all finished runs.
type TestFlakeRate struct {
	Scope, Key  string
	Suite, Name string
	Runs        int // runs where it passed, failed or flaked
	Failures    int // runs where it failed
	Flakes      int // runs where it failed and passed
	FlakeRate   float64
	ComputedAt  time.Time // the time of the ReplaceAnalysis call when zero
}

// ReplaceAnalysis replaces the whole analysis, symptom_verdicts and
// test_flake_rates, in one transaction: readers see the old analysis or the
// new one, never a mix. Of rates, only those of tests that failed or
// flaked at least once in their scope key are stored: one that always
// passed has a rate of 0, which its absence says as well, and storing
// every test of every scope key made the table several times the size of
// the tests it summarised (3 rows a test of a run of a single job).
func (d *DB) ReplaceAnalysis(ctx context.Context, verdicts []SymptomVerdict, rates []TestFlakeRate) (err error) {
	now := formatTime(time.Now())
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("replace analysis: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, rollback(tx))
		}
	}()
	for _, table := range []string{"symptom_verdicts", "test_flake_rates"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table); err != nil {
			return fmt.Errorf("replace analysis: clear %s: %w", table, err)
		}
	}
	if err := insertVerdicts(ctx, tx, verdicts, now); err != nil {
		return fmt.Errorf("replace analysis: %w", err)
	}
	if err := insertFlakeRates(ctx, tx, rates, now); err != nil {
		return fmt.Errorf("replace analysis: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("replace analysis: commit: %w", err)
	}
	return nil
}

func insertVerdicts(ctx context.Context, tx *sql.Tx, verdicts []SymptomVerdict, now string) (err error) {
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO symptom_verdicts (symptom_id, scope, scope_key, comparison,
	sample_label, basis_label, sample_runs, sample_hits, basis_runs, basis_hits, sample_rate, basis_rate,
	p_value, verdict, computed_at, sample_from, sample_to, basis_from, basis_to, sample_left_out, basis_left_out,
	sample_unclassified, basis_unclassified)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stmt.Close()) }()
	for _, v := range verdicts {
		at := now
		if !v.ComputedAt.IsZero() {
			at = formatTime(v.ComputedAt)
		}
		if _, err := stmt.ExecContext(ctx, v.Symptom, v.Scope, v.Key, v.Comparison, v.SampleLabel, v.BasisLabel,
			v.SampleRuns, v.SampleHits, v.BasisRuns, v.BasisHits, nullFloat(v.SampleRate), nullFloat(v.BasisRate),
			nullFloat(v.P), v.Verdict, at, nullTime(v.SampleFrom), nullTime(v.SampleTo), nullTime(v.BasisFrom),
			nullTime(v.BasisTo), v.SampleLeftOut, v.BasisLeftOut, v.SampleUnclassified, v.BasisUnclassified); err != nil {
			return fmt.Errorf("verdict %s %s %q %s: %w", v.Symptom, v.Scope, v.Key, v.Comparison, err)
		}
	}
	return nil
}

func insertFlakeRates(ctx context.Context, tx *sql.Tx, rates []TestFlakeRate, now string) (err error) {
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO test_flake_rates (scope, scope_key, suite, name,
	runs, failures, flakes, flake_rate, computed_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stmt.Close()) }()
	for _, r := range rates {
		if r.Runs > 0 && r.Failures == 0 && r.Flakes == 0 && r.Scope != "" && (Filter{Scope: r.Scope}).check() == nil {
			continue // never failed: not stored (a row that is wrong is refused below)
		}
		at := now
		if !r.ComputedAt.IsZero() {
			at = formatTime(r.ComputedAt)
		}
		if _, err := stmt.ExecContext(ctx, r.Scope, r.Key, r.Suite, r.Name, r.Runs, r.Failures, r.Flakes,
			r.FlakeRate, at); err != nil {
			return fmt.Errorf("flake rate %s %q %q: %w", r.Scope, r.Key, r.Name, err)
		}
	}
	return nil
}

// nullFloat stores NaN as NULL.
func nullFloat(f float64) any {
	if math.IsNaN(f) {
		return nil
	}
	return f
}

// floatOrNaN reads NULL as NaN.
func floatOrNaN(f sql.NullFloat64) float64 {
	if !f.Valid {
		return math.NaN()
	}
	return f.Float64
}

// Verdicts returns the rows of symptom_verdicts that f selects, with their
// symptom's title and bug, ordered by symptom, scope, key and comparison.
func (d *DB) Verdicts(ctx context.Context, f Filter) ([]SymptomVerdict, error) {
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("verdicts: %w", err)
	}
	w := f.analysisWhere("v")
	if f.Symptom != "" {
		w.add(`v.symptom_id = ?`, f.Symptom)
	}
	out, err := queryList(ctx, d.db, scanVerdict, `SELECT v.symptom_id, v.scope, v.scope_key, v.comparison,
	v.sample_label, v.basis_label, v.sample_runs, v.sample_hits, v.basis_runs, v.basis_hits,
	v.sample_rate, v.basis_rate, v.p_value, v.verdict, v.computed_at, s.title, coalesce(s.bug, ''),
	v.sample_from, v.sample_to, v.basis_from, v.basis_to, v.sample_left_out, v.basis_left_out,
	v.sample_unclassified, v.basis_unclassified
FROM symptom_verdicts v JOIN symptoms s ON s.id = v.symptom_id
WHERE 1`+w.sql()+`
ORDER BY v.symptom_id, v.scope, v.scope_key, v.comparison`, w.args...)
	if err != nil {
		return nil, fmt.Errorf("verdicts: %w", err)
	}
	return out, nil
}

// scanVerdict scans a row of Verdicts' query.
func scanVerdict(rows *sql.Rows) (SymptomVerdict, error) {
	var v SymptomVerdict
	var sampleRate, basisRate, p sql.NullFloat64
	var at, sf, st, bf, bt sql.NullString
	if err := rows.Scan(&v.Symptom, &v.Scope, &v.Key, &v.Comparison, &v.SampleLabel, &v.BasisLabel,
		&v.SampleRuns, &v.SampleHits, &v.BasisRuns, &v.BasisHits, &sampleRate, &basisRate, &p,
		&v.Verdict, &at, &v.Title, &v.Bug, &sf, &st, &bf, &bt, &v.SampleLeftOut, &v.BasisLeftOut,
		&v.SampleUnclassified, &v.BasisUnclassified); err != nil {
		return v, err
	}
	var err error
	for _, t := range []struct {
		dst *time.Time
		src sql.NullString
	}{{&v.SampleFrom, sf}, {&v.SampleTo, st}, {&v.BasisFrom, bf}, {&v.BasisTo, bt}} {
		if *t.dst, err = parseTime(t.src); err != nil {
			return v, err
		}
	}
	v.SampleRate, v.BasisRate, v.P = floatOrNaN(sampleRate), floatOrNaN(basisRate), floatOrNaN(p)
	v.ComputedAt, err = parseTime(at)
	return v, err
}

// TestFlakeRates returns the rows of test_flake_rates that f selects (its
// Scope, Key, Job and Since, as for Verdicts; tests have no symptom), the
// flakiest first.
func (d *DB) TestFlakeRates(ctx context.Context, f Filter) ([]TestFlakeRate, error) {
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("test flake rates: %w", err)
	}
	if f.Symptom != "" {
		return nil, fmt.Errorf("test flake rates: a test has no symptom (%s)", f.Symptom)
	}
	w := f.analysisWhere("f")
	out, err := queryList(ctx, d.db, func(rows *sql.Rows) (TestFlakeRate, error) {
		var r TestFlakeRate
		var at sql.NullString
		if err := rows.Scan(&r.Scope, &r.Key, &r.Suite, &r.Name, &r.Runs, &r.Failures, &r.Flakes, &r.FlakeRate, &at); err != nil {
			return r, err
		}
		var err error
		r.ComputedAt, err = parseTime(at)
		return r, err
	}, `SELECT f.scope, f.scope_key, f.suite, f.name, f.runs, f.failures, f.flakes,
	f.flake_rate, f.computed_at
FROM test_flake_rates f
WHERE 1`+w.sql()+`
ORDER BY f.flake_rate DESC, f.flakes DESC, f.scope, f.scope_key, f.suite, f.name`, w.args...)
	if err != nil {
		return nil, fmt.Errorf("test flake rates: %w", err)
	}
	return out, nil
}
