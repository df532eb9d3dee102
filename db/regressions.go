package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The states of a regression, and what an analysis can do to one.
const (
	RegressionOpen   = "open"
	RegressionClosed = "closed"

	ChangeOpened   = "opened"
	ChangeReopened = "reopened"
	ChangeClosed   = "closed"
)

// Regression is a row of regressions: a symptom that regressed in a scope
// key, kept across analyses. Zero times are NULL.
type Regression struct {
	Symptom, Scope, Key string
	Status              string // RegressionOpen or RegressionClosed
	Comparison          string // the comparison it was last found by
	OpenedAt            time.Time
	ReopenedAt          time.Time
	Reopened            int
	ClosedAt            time.Time
	LastSeenAt          time.Time
	FirstRun            string // "job/build_id" of the first sample run that showed it
	FirstRunURL         string
	// FirstRunAt is when that run started (zero when it is no longer
	// stored): where "open since" begins.
	FirstRunAt  time.Time
	SampleLabel string
	SampleRuns  int
	SampleHits  int
	BasisLabel  string
	BasisRuns   int
	BasisHits   int
	P           float64 // NaN when unknown
	// Title and Bug are the symptom's, when read back.
	Title, Bug string
}

// RegressionChange is a row of regression_changes.
type RegressionChange struct {
	AnalysisID          int64
	Symptom, Scope, Key string
	Change              string // ChangeOpened, ChangeReopened or ChangeClosed
	At                  time.Time
}

// Lifecycle is what an analysis writes besides its verdicts: its own row,
// the regressions it opened, kept, closed or reopened, the changes, and the
// disruption statistics.
type Lifecycle struct {
	ComputedAt, AsOf time.Time
	Regressions      []Regression // rows to write (new or updated)
	Changes          []RegressionChange
	Disruption       []DisruptionStat
}

// SaveLifecycle writes l in one transaction and returns the analysis's id.
func (d *DB) SaveLifecycle(ctx context.Context, l Lifecycle) (id int64, err error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("save analysis: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, rollback(tx))
		}
	}()
	res, err := tx.ExecContext(ctx, `INSERT INTO analyses (computed_at, as_of) VALUES (?, ?)`, formatTime(l.ComputedAt), formatTime(l.AsOf))
	if err != nil {
		return 0, fmt.Errorf("save analysis: %w", err)
	}
	if id, err = res.LastInsertId(); err != nil {
		return 0, fmt.Errorf("save analysis: %w", err)
	}
	for _, r := range l.Regressions {
		if _, err := tx.ExecContext(ctx, `INSERT INTO regressions (symptom_id, scope, scope_key, status, comparison,
	opened_at, reopened_at, reopened, closed_at, last_seen_at, first_run, first_run_url,
	sample_label, sample_runs, sample_hits, basis_label, basis_runs, basis_hits, p_value)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (symptom_id, scope, scope_key) DO UPDATE SET
	status = excluded.status, comparison = excluded.comparison, opened_at = excluded.opened_at,
	reopened_at = excluded.reopened_at, reopened = excluded.reopened, closed_at = excluded.closed_at,
	last_seen_at = excluded.last_seen_at, first_run = excluded.first_run, first_run_url = excluded.first_run_url,
	sample_label = excluded.sample_label, sample_runs = excluded.sample_runs, sample_hits = excluded.sample_hits,
	basis_label = excluded.basis_label, basis_runs = excluded.basis_runs, basis_hits = excluded.basis_hits,
	p_value = excluded.p_value`,
			r.Symptom, r.Scope, r.Key, r.Status, r.Comparison, formatTime(r.OpenedAt), nullTime(r.ReopenedAt), r.Reopened,
			nullTime(r.ClosedAt), formatTime(r.LastSeenAt), nullString(r.FirstRun), nullString(r.FirstRunURL),
			r.SampleLabel, r.SampleRuns, r.SampleHits, r.BasisLabel, r.BasisRuns, r.BasisHits, nullFloat(r.P)); err != nil {
			return 0, fmt.Errorf("save analysis: regression %s %s %q: %w", r.Symptom, r.Scope, r.Key, err)
		}
	}
	for _, c := range l.Changes {
		if _, err := tx.ExecContext(ctx, `INSERT INTO regression_changes (analysis_id, symptom_id, scope, scope_key, change, at)
VALUES (?, ?, ?, ?, ?, ?)`, id, c.Symptom, c.Scope, c.Key, c.Change, formatTime(l.ComputedAt)); err != nil {
			return 0, fmt.Errorf("save analysis: change of %s %s %q: %w", c.Symptom, c.Scope, c.Key, err)
		}
	}
	if err := insertDisruptionStats(ctx, tx, l.Disruption, formatTime(l.ComputedAt)); err != nil {
		return 0, fmt.Errorf("save analysis: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("save analysis: commit: %w", err)
	}
	return id, nil
}

const regressionColumns = `g.symptom_id, g.scope, g.scope_key, g.status, g.comparison, g.opened_at, g.reopened_at, g.reopened,
	g.closed_at, g.last_seen_at, g.first_run, g.first_run_url, g.sample_label, g.sample_runs, g.sample_hits,
	g.basis_label, g.basis_runs, g.basis_hits, g.p_value, coalesce(s.title, ''), coalesce(s.bug, ''),
	(SELECT started_at FROM runs WHERE job = substr(g.first_run, 1, instr(g.first_run, '/') - 1)
		AND build_id = CAST(substr(g.first_run, instr(g.first_run, '/') + 1) AS INTEGER))`

// scanRegression scans regressionColumns, after the columns of before.
func scanRegression(rows *sql.Rows, before ...any) (Regression, error) {
	var r Regression
	var opened, reopened, closed, seen, firstRun, firstURL, firstAt sql.NullString
	var p sql.NullFloat64
	if err := rows.Scan(append(before, &r.Symptom, &r.Scope, &r.Key, &r.Status, &r.Comparison, &opened, &reopened, &r.Reopened,
		&closed, &seen, &firstRun, &firstURL, &r.SampleLabel, &r.SampleRuns, &r.SampleHits,
		&r.BasisLabel, &r.BasisRuns, &r.BasisHits, &p, &r.Title, &r.Bug, &firstAt)...); err != nil {
		return r, err
	}
	var err error
	for _, f := range []struct {
		dst *time.Time
		src sql.NullString
	}{{&r.OpenedAt, opened}, {&r.ReopenedAt, reopened}, {&r.ClosedAt, closed}, {&r.LastSeenAt, seen}, {&r.FirstRunAt, firstAt}} {
		if *f.dst, err = parseTime(f.src); err != nil {
			return r, err
		}
	}
	r.FirstRun, r.FirstRunURL, r.P = firstRun.String, firstURL.String, floatOrNaN(p)
	return r, nil
}

// Regressions reads the regressions, open ones first, oldest first; only
// those of status unless it is empty.
func (d *DB) Regressions(ctx context.Context, status string) ([]Regression, error) {
	return regressions(ctx, d.db, status)
}

func regressions(ctx context.Context, db queryer, status string) ([]Regression, error) {
	q := `SELECT ` + regressionColumns + ` FROM regressions g LEFT JOIN symptoms s ON s.id = g.symptom_id`
	var args []any
	if status != "" {
		q += ` WHERE g.status = ?`
		args = append(args, status)
	}
	q += ` ORDER BY g.status = 'closed', g.opened_at, g.symptom_id, g.scope, g.scope_key`
	out, err := queryList(ctx, db, func(rows *sql.Rows) (Regression, error) { return scanRegression(rows) }, q, args...)
	if err != nil {
		return nil, fmt.Errorf("regressions: %w", err)
	}
	return out, nil
}

// Analysis is a row of analyses.
type Analysis struct {
	ID               int64
	ComputedAt, AsOf time.Time
}

// Changes is what the analyses since a time (or the newest analysis)
// changed: the regressions opened, reopened and closed, and those open
// before and still open.
type Changes struct {
	// Since is the time asked for; zero when the newest analysis was.
	Since time.Time
	// Analyses are the analyses counted, oldest first.
	Analyses                 []Analysis
	Opened, Reopened, Closed []Regression
	StillOpen                []Regression
}

// RegressionChanges reads what changed in the analyses computed at or
// after since, or, when since is zero, in the newest analysis. A
// regression that changed more than once is listed by its last change.
// With no analysis, the result is empty.
func (d *DB) RegressionChanges(ctx context.Context, since time.Time) (c Changes, err error) {
	c.Since = since
	tx, err := d.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return c, fmt.Errorf("regression changes: %w", err)
	}
	defer func() { err = errors.Join(err, rollback(tx)) }()
	cond, args := `a.computed_at >= ?`, []any{formatTime(since)}
	if since.IsZero() {
		cond, args = `a.id = (SELECT max(id) FROM analyses)`, nil
	}
	c.Analyses, err = queryList(ctx, tx, func(rows *sql.Rows) (Analysis, error) {
		var a Analysis
		var at, asOf sql.NullString
		err := rows.Scan(&a.ID, &at, &asOf)
		a.ComputedAt, _ = parseTime(at)
		a.AsOf, _ = parseTime(asOf)
		return a, err
	}, `SELECT a.id, a.computed_at, a.as_of FROM analyses a WHERE `+cond+` ORDER BY a.id`, args...)
	if err != nil {
		return c, fmt.Errorf("regression changes: %w", err)
	}
	if len(c.Analyses) == 0 {
		return c, nil
	}
	first := c.Analyses[0].ID
	// Each regression's last change in the analyses counted.
	changed := map[[3]string]bool{}
	err = queryEach(ctx, tx, func(rows *sql.Rows) error {
		var change string
		r, err := scanRegression(rows, &change)
		if err != nil {
			return err
		}
		changed[[3]string{r.Symptom, r.Scope, r.Key}] = true
		switch change {
		case ChangeOpened:
			c.Opened = append(c.Opened, r)
		case ChangeReopened:
			c.Reopened = append(c.Reopened, r)
		case ChangeClosed:
			c.Closed = append(c.Closed, r)
		}
		return nil
	}, `SELECT ch.change, `+regressionColumns+`
FROM (SELECT symptom_id, scope, scope_key, change, max(analysis_id) FROM regression_changes
	WHERE analysis_id >= ? GROUP BY symptom_id, scope, scope_key) ch
JOIN regressions g ON g.symptom_id = ch.symptom_id AND g.scope = ch.scope AND g.scope_key = ch.scope_key
LEFT JOIN symptoms s ON s.id = g.symptom_id
ORDER BY g.symptom_id, g.scope, g.scope_key`, first)
	if err != nil {
		return c, fmt.Errorf("regression changes: %w", err)
	}
	open, err := regressions(ctx, tx, RegressionOpen)
	if err != nil {
		return c, err
	}
	for _, r := range open {
		if !changed[[3]string{r.Symptom, r.Scope, r.Key}] {
			c.StillOpen = append(c.StillOpen, r)
		}
	}
	return c, nil
}

// EdgeGroup names the runs of one job on one edge (the runs' release,
// from_release and upgrade, empty for NULL).
type EdgeGroup struct {
	Job, Release, FromRelease, Upgrade string
}

// FirstSymptomRun finds the earliest finished run (by start) of groups
// that shows symptom and started after after (zero: any time): its
// "job/build_id" and link. ok is false when there is none.
func (d *DB) FirstSymptomRun(ctx context.Context, symptom string, groups []EdgeGroup, after time.Time) (run, url string, ok bool, err error) {
	if len(groups) == 0 {
		return "", "", false, nil
	}
	var conds []string
	args := []any{symptom}
	for _, g := range groups {
		conds = append(conds, `(r.job = ? AND coalesce(r.release, '') = ? AND coalesce(r.from_release, '') = ? AND coalesce(r.upgrade, '') = ?)`)
		args = append(args, g.Job, g.Release, g.FromRelease, g.Upgrade)
	}
	q := `SELECT r.job, r.build_id, r.url FROM run_symptoms rs
JOIN runs r INDEXED BY runs_key ON r.job = rs.job AND r.build_id = rs.build_id
WHERE rs.symptom_id = ? AND ` + countedRun + ` AND (` + strings.Join(conds, " OR ") + `)`
	if !after.IsZero() {
		q += ` AND r.started_at > ?`
		args = append(args, formatTime(after))
	}
	q += ` ORDER BY r.started_at, r.build_id LIMIT 1`
	var job string
	var build int64
	err = d.db.QueryRowContext(ctx, q, args...).Scan(&job, &build, &url)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return "", "", false, nil
	case err != nil:
		return "", "", false, fmt.Errorf("first run of %s: %w", symptom, err)
	}
	return fmt.Sprintf("%s/%d", job, build), url, true, nil
}
