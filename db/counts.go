package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// Window is a span of run start times: From excluded, To included.
type Window struct {
	From, To time.Time
}

// Bounds narrow the runs the analysis counts: those started at or after
// Since and before Until (zero: no bound), of the jobs named in Jobs (nil:
// every job). A report's --since, --until and --job are Bounds, so that
// every number on its page is counted from the same runs.
type Bounds struct {
	Since, Until time.Time
	Jobs         []string
}

// IsZero reports whether b bounds nothing.
func (b Bounds) IsZero() bool {
	return b.Since.IsZero() && b.Until.IsZero() && b.Jobs == nil
}

// where is the SQL condition of b on runs r, with its arguments.
func (b Bounds) where() (string, []any, error) {
	return b.whereOn(onRuns("r"))
}

// RunGroup counts the finished runs of one job on one edge. The edge is the
// runs' own (release, from_release and upgrade of runs); Release is empty
// when the runs do not know it. The job's columns are the job's. Runs,
// Failed, Sample and Basis count the runs whose upgrade began (or is not
// known not to have); LeftOut and its window counts the others.
type RunGroup struct {
	Job                           string
	Release, FromRelease, Upgrade string
	Platform, Network, Arch       string
	Topology, Type                string
	// RuleSet is the set of rule versions that classified the runs (0:
	// none did): whether they count for a rule (AnalysisCounts.Population).
	RuleSet                     int64
	Runs                        int // finished runs counted
	Failed                      int // of those, the runs that did not succeed
	Sample, Basis               int // those started in the sample and in the basis window
	LeftOut                     int // finished runs whose upgrade never began
	SampleLeftOut, BasisLeftOut int // of those, the ones in each window
	// First and Last are the start times of the first and last run
	// counted; zero without runs.
	First, Last time.Time
}

// Job is the jobs row of the group's job.
func (g RunGroup) JobRow() prowcrawl.Job {
	return prowcrawl.Job{Name: g.Job, Type: g.Type, Platform: g.Platform, Network: g.Network, Arch: g.Arch, Topology: g.Topology}
}

// SymptomGroup counts the finished runs of one job on one edge that show an
// active symptom, of those whose upgrade began.
type SymptomGroup struct {
	Symptom                       string
	Job                           string
	Release, FromRelease, Upgrade string
	Runs                          int // counted runs showing it
	Failed                        int // of those, the runs that did not succeed
	Sample, Basis                 int // those started in the sample and in the basis window
}

// WeekGroup counts the runs of one job on one edge started in one ISO week,
// and those of them that show a symptom (Symptom empty: all counted runs).
type WeekGroup struct {
	Symptom                       string
	Job                           string
	Release, FromRelease, Upgrade string
	RuleSet                       int64     // of the runs (Symptom empty)
	Week                          string    // "2026-W47"
	Monday                        time.Time // the week's Monday, 00:00 UTC
	Runs                          int
}

// TestGroup counts the finished runs of one job on one edge in which a test
// ran (passed, failed or flaked; skips do not count).
type TestGroup struct {
	Job                           string
	Release, FromRelease, Upgrade string
	Suite, Name                   string
	Runs, Failures, Flakes        int
}

// AnalysisCounts is what the analysis reads: every count it needs, grouped
// by job and edge, from one snapshot of the database.
type AnalysisCounts struct {
	Symptoms []string // the active symptoms
	// Rules are the active symptoms' rows, by id: their rules' current
	// versions and reach.
	Rules map[string]Symptom
	// RuleSets are the stored sets of rule versions that classified runs,
	// by id.
	RuleSets map[int64]RuleSet
	Runs     []RunGroup
	Hits     []SymptomGroup
	Tests    []TestGroup
	// Weeks are the counted runs per job, edge and week (Symptom empty),
	// and those showing each symptom, when asked for.
	Weeks []WeekGroup
}

// CountOptions say what AnalysisCounts counts besides the runs and hits.
type CountOptions struct {
	Sample, Basis Window // the windows of the time comparison
	Bounds        Bounds // the runs counted at all
	Tests         bool   // the tests' counts (over all runs: test_counts is not bounded)
	Weeks         bool   // the weekly counts
}

// NewestRunStart returns the start time of the newest run stored, or the zero
// time when there is none. A start no run can have (after a day past the
// clock, or not a time) is passed over: one run dated 2099 must not move
// every window that ends at the newest run.
func (d *DB) NewestRunStart(ctx context.Context) (time.Time, error) {
	return d.NewestRunStartIn(ctx, Bounds{})
}

// NewestRunStartIn returns the start time of the newest run within b, or the
// zero time when there is none.
func (d *DB) NewestRunStartIn(ctx context.Context, b Bounds) (time.Time, error) {
	cond, args, err := b.where()
	if err != nil {
		return time.Time{}, fmt.Errorf("newest run: %w", err)
	}
	var newest sql.NullString
	// The check of plausible times is not for an index (+): its IS NULL arm
	// would make SQLite read runs_started_at twice and sort every run; the
	// newest is the first of runs_started_at read backwards.
	if err := d.db.QueryRowContext(ctx, `SELECT r.started_at FROM runs r
WHERE r.started_at IS NOT NULL AND `+plausibleSQL("+r.started_at")+cond+` ORDER BY r.started_at DESC LIMIT 1`, args...).Scan(&newest); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, fmt.Errorf("newest run: %w", err)
	}
	t, err := parseTime(newest)
	if err != nil {
		return time.Time{}, fmt.Errorf("newest run: %w", err)
	}
	return t, nil
}

// OldestRunStart returns the start time of the oldest run stored whose
// start a run can have, or the zero time when there is none.
func (d *DB) OldestRunStart(ctx context.Context) (time.Time, error) {
	var oldest sql.NullString
	if err := d.db.QueryRowContext(ctx, `SELECT r.started_at FROM runs r
WHERE r.started_at IS NOT NULL AND `+plausibleSQL("+r.started_at")+` ORDER BY r.started_at LIMIT 1`).Scan(&oldest); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, fmt.Errorf("oldest run: %w", err)
	}
	t, err := parseTime(oldest)
	if err != nil {
		return time.Time{}, fmt.Errorf("oldest run: %w", err)
	}
	return t, nil
}

// startedRun is the SQL condition on runs r that the run's upgrade began or
// is not known not to have: the runs a rate counts.
const startedRun = `r.upgrade_started IS NOT 0`

// AnalysisCounts counts the finished runs, the runs showing each active
// symptom and (when o asks) the tests' outcomes and the weekly counts, by
// job and edge, in one read transaction so that a crawl writing meanwhile
// cannot make the counts disagree. The grouping is done by SQLite: what
// comes back is a few rows per job and edge (and test), not a row per run.
func (d *DB) AnalysisCounts(ctx context.Context, o CountOptions) (c AnalysisCounts, err error) {
	bound, boundArgs, err := o.Bounds.where()
	if err != nil {
		return c, fmt.Errorf("analysis counts: %w", err)
	}
	// A read-only transaction begins deferred: it reads one snapshot of the
	// WAL and does not block a crawler's writes meanwhile.
	tx, err := d.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return c, fmt.Errorf("analysis counts: %w", err)
	}
	defer func() { err = errors.Join(err, rollback(tx)) }()
	args := append([]any{
		formatTime(o.Sample.From), formatTime(o.Sample.To),
		formatTime(o.Basis.From), formatTime(o.Basis.To),
	}, boundArgs...)

	c.Symptoms, err = queryList(ctx, tx, func(rows *sql.Rows) (string, error) {
		var id string
		return id, rows.Scan(&id)
	}, `SELECT id FROM symptoms WHERE active = 1 ORDER BY id`)
	if err != nil {
		return c, fmt.Errorf("active symptoms: %w", err)
	}
	if c.Rules, err = activeSymptoms(ctx, tx); err != nil {
		return c, err
	}
	if c.RuleSets, err = loadRuleSets(ctx, tx); err != nil {
		return c, err
	}

	// The plans are fixed (INDEXED BY, CROSS JOIN keeps the order written):
	// without statistics, SQLite would pick runs_result and read the wide
	// rows of the table, ten times slower.
	if o.Bounds.timed() {
		// A window: its days of runs_days, grouped by day, job and edge
		// in the index's order (no sort), summed here into the window's
		// groups and weeks.
		if err := c.windowRuns(ctx, tx, o); err != nil {
			return c, fmt.Errorf("run counts: %w", err)
		}
	} else {
		// Every run, or the runs of some jobs: runs_analysis is read in
		// the order of the grouping, and covers it. The runs are grouped
		// before the join with jobs: one lookup per group, not per run.
		const inSample = `r.started_at > ?1 AND r.started_at <= ?2`
		const inBasis = `r.started_at > ?3 AND r.started_at <= ?4`
		c.Runs, err = queryList(ctx, tx, func(rows *sql.Rows) (RunGroup, error) {
			var g RunGroup
			var first, last sql.NullString
			if err := rows.Scan(&g.Job, &g.Release, &g.FromRelease, &g.Upgrade, &g.RuleSet,
				&g.Platform, &g.Network, &g.Arch, &g.Topology, &g.Type,
				&g.Runs, &g.Failed, &g.Sample, &g.Basis, &g.LeftOut, &g.SampleLeftOut, &g.BasisLeftOut,
				&first, &last); err != nil {
				return g, err
			}
			var err error
			if g.First, err = parseTime(first); err != nil {
				return g, err
			}
			g.Last, err = parseTime(last)
			return g, err
		}, `SELECT g.job, g.release, g.from_release, g.upgrade, g.rule_set,
	coalesce(j.platform, ''), coalesce(j.network, ''), coalesce(j.arch, ''), coalesce(j.topology, ''), coalesce(j.type, ''),
	g.runs, g.failed, g.sample, g.basis, g.left_out, g.sample_left_out, g.basis_left_out, g.first, g.last
FROM (
	SELECT r.job, coalesce(r.release, '') AS release, coalesce(r.from_release, '') AS from_release,
		coalesce(r.upgrade, '') AS upgrade, coalesce(r.rule_set, 0) AS rule_set,
		count(CASE WHEN `+startedRun+` THEN 1 END) AS runs,
		count(CASE WHEN `+startedRun+` AND r.result <> 'success' THEN 1 END) AS failed,
		count(CASE WHEN `+startedRun+` AND `+inSample+` THEN 1 END) AS sample,
		count(CASE WHEN `+startedRun+` AND `+inBasis+` THEN 1 END) AS basis,
		count(CASE WHEN r.upgrade_started = 0 THEN 1 END) AS left_out,
		count(CASE WHEN r.upgrade_started = 0 AND `+inSample+` THEN 1 END) AS sample_left_out,
		count(CASE WHEN r.upgrade_started = 0 AND `+inBasis+` THEN 1 END) AS basis_left_out,
		min(CASE WHEN `+startedRun+` THEN r.started_at END) AS first,
		max(CASE WHEN `+startedRun+` THEN r.started_at END) AS last
	FROM runs r INDEXED BY runs_analysis
	WHERE `+countedRun+bound+`
	GROUP BY r.job, r.release, r.from_release, r.upgrade, r.rule_set
) g JOIN jobs j ON j.name = g.job
ORDER BY 1, 2, 3, 4, 5`, args...)
		if err != nil {
			return c, fmt.Errorf("run counts: %w", err)
		}
		if o.Weeks {
			week := weekOf("r.started_at")
			runs, err := queryList(ctx, tx, scanWeek, `SELECT '', r.job, coalesce(r.release, ''), coalesce(r.from_release, ''),
	coalesce(r.upgrade, ''), coalesce(r.rule_set, 0), `+week+`, count(*)
FROM runs r INDEXED BY runs_analysis
WHERE `+countedRun+` AND `+startedRun+` AND r.started_at IS NOT NULL`+bound+`
GROUP BY 2, 3, 4, 5, 6, 7
ORDER BY 2, 3, 4, 5, 6, 7`, boundArgs...)
			if err != nil {
				return c, fmt.Errorf("weekly counts: %w", err)
			}
			c.Weeks = runs
		}
	}
	// The symptoms' matches are counted from the copies of their runs'
	// columns (migration 0017) in run_symptoms_days (0019): for each
	// symptom, the window's days of it (or all of it), grouped by day, job
	// and edge in its order, and summed here; no run is looked up.
	if err := c.symptomDays(ctx, tx, o); err != nil {
		return c, fmt.Errorf("symptom counts: %w", err)
	}

	if !o.Tests {
		return c, nil
	}
	// The tests' counts are kept by the writer in test_counts (see
	// testcounts.go), in the order of its key: no grouping of tests here.
	c.Tests, err = queryList(ctx, tx, func(rows *sql.Rows) (TestGroup, error) {
		var g TestGroup
		return g, rows.Scan(&g.Job, &g.Release, &g.FromRelease, &g.Upgrade, &g.Suite, &g.Name,
			&g.Runs, &g.Failures, &g.Flakes)
	}, `SELECT job, release, from_release, upgrade, suite, name, runs, failures, flakes
FROM test_counts
WHERE runs > 0
ORDER BY job, release, from_release, upgrade, suite, name`)
	if err != nil {
		return c, fmt.Errorf("test counts: %w", err)
	}
	return c, nil
}

// weekOf are the ISO week of the start time column col ("2026-W47") and
// its Monday.
func weekOf(col string) string {
	return `strftime('%G-W%V', ` + col + `), date(` + col + `, '-6 days', 'weekday 1')`
}

// queryList runs query and scans every row with scan.
func queryList[T any](ctx context.Context, tx *sql.Tx, scan func(*sql.Rows) (T, error), query string, args ...any) ([]T, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, rows.Close()
}
