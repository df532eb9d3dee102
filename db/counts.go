package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Window is a span of run start times: From excluded, To included.
type Window struct {
	From, To time.Time
}

// RunGroup counts the finished runs of one job on one edge. The edge is the
// runs' own (release, from_release and upgrade of runs); Release is empty
// when the runs do not know it. Platform, Network and Arch are the job's.
type RunGroup struct {
	Job                           string
	Release, FromRelease, Upgrade string
	Platform, Network, Arch       string
	Runs                          int // all finished runs
	Sample, Basis                 int // those started in the sample and in the basis window
}

// SymptomGroup counts the finished runs of one job on one edge that show an
// active symptom.
type SymptomGroup struct {
	Symptom                       string
	Job                           string
	Release, FromRelease, Upgrade string
	Runs                          int // all finished runs showing it
	Sample, Basis                 int // those started in the sample and in the basis window
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
	Runs     []RunGroup
	Hits     []SymptomGroup
	Tests    []TestGroup
}

// NewestRunStart returns the start time of the newest run stored, or the zero
// time when there is none.
func (d *DB) NewestRunStart(ctx context.Context) (time.Time, error) {
	var newest sql.NullString
	if err := d.db.QueryRowContext(ctx, `SELECT max(started_at) FROM runs`).Scan(&newest); err != nil {
		return time.Time{}, fmt.Errorf("newest run: %w", err)
	}
	t, err := parseTime(newest)
	if err != nil {
		return time.Time{}, fmt.Errorf("newest run: %w", err)
	}
	return t, nil
}

// AnalysisCounts counts the finished runs, the runs showing each active
// symptom and the tests' outcomes, by job and edge, in one read transaction so
// that a crawl writing meanwhile cannot make the counts disagree. The
// grouping is done by SQLite: what comes back is a few rows per job and edge
// (and test), not a row per run.
func (d *DB) AnalysisCounts(ctx context.Context, sample, basis Window) (c AnalysisCounts, err error) {
	// A read-only transaction begins deferred: it reads one snapshot of the
	// WAL and does not block a crawler's writes meanwhile.
	tx, err := d.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return c, fmt.Errorf("analysis counts: %w", err)
	}
	defer func() { err = errors.Join(err, rollback(tx)) }()
	windows := []any{
		formatTime(sample.From), formatTime(sample.To),
		formatTime(basis.From), formatTime(basis.To),
	}

	c.Symptoms, err = queryList(ctx, tx, func(rows *sql.Rows) (string, error) {
		var id string
		return id, rows.Scan(&id)
	}, `SELECT id FROM symptoms WHERE active = 1 ORDER BY id`)
	if err != nil {
		return c, fmt.Errorf("active symptoms: %w", err)
	}

	// The plans are fixed (INDEXED BY, CROSS JOIN keeps the order written):
	// without statistics, SQLite would pick runs_result and read the wide
	// rows of the table, ten times slower. runs_analysis is read in the
	// order of the grouping, and covers it. The symptoms' matches are read
	// from their covering index, each run looked up once in runs_key, which
	// covers what the grouping needs of the run (+result: as a term of the
	// index, the IN would look each run up three times); driven by the runs
	// instead, SQLite builds an automatic index of run_symptoms, 40 % slower
	// on a million runs. The runs are grouped before the join with jobs: one
	// lookup per group, not per run.
	c.Runs, err = queryList(ctx, tx, func(rows *sql.Rows) (RunGroup, error) {
		var g RunGroup
		return g, rows.Scan(&g.Job, &g.Release, &g.FromRelease, &g.Upgrade,
			&g.Platform, &g.Network, &g.Arch, &g.Runs, &g.Sample, &g.Basis)
	}, `SELECT g.job, g.release, g.from_release, g.upgrade,
	coalesce(j.platform, ''), coalesce(j.network, ''), coalesce(j.arch, ''),
	g.runs, g.sample, g.basis
FROM (
	SELECT r.job, coalesce(r.release, '') AS release, coalesce(r.from_release, '') AS from_release,
		coalesce(r.upgrade, '') AS upgrade,
		count(*) AS runs,
		count(CASE WHEN r.started_at > ?1 AND r.started_at <= ?2 THEN 1 END) AS sample,
		count(CASE WHEN r.started_at > ?3 AND r.started_at <= ?4 THEN 1 END) AS basis
	FROM runs r INDEXED BY runs_analysis
	WHERE `+countedRun+`
	GROUP BY r.job, r.release, r.from_release, r.upgrade
) g JOIN jobs j ON j.name = g.job
ORDER BY 1, 2, 3, 4`, windows...)
	if err != nil {
		return c, fmt.Errorf("run counts: %w", err)
	}

	c.Hits, err = queryList(ctx, tx, func(rows *sql.Rows) (SymptomGroup, error) {
		var g SymptomGroup
		return g, rows.Scan(&g.Symptom, &g.Job, &g.Release, &g.FromRelease, &g.Upgrade, &g.Runs, &g.Sample, &g.Basis)
	}, `SELECT rs.symptom_id, r.job, coalesce(r.release, ''), coalesce(r.from_release, ''), coalesce(r.upgrade, ''),
	count(*),
	count(CASE WHEN r.started_at > ?1 AND r.started_at <= ?2 THEN 1 END),
	count(CASE WHEN r.started_at > ?3 AND r.started_at <= ?4 THEN 1 END)
FROM symptoms s
CROSS JOIN run_symptoms rs INDEXED BY run_symptoms_symptom_run ON rs.symptom_id = s.id
CROSS JOIN runs r INDEXED BY runs_key ON r.job = rs.job AND r.build_id = rs.build_id
WHERE s.active = 1 AND +`+countedRun+`
GROUP BY rs.symptom_id, r.job, r.release, r.from_release, r.upgrade
ORDER BY 1, 2, 3, 4, 5`, windows...)
	if err != nil {
		return c, fmt.Errorf("symptom counts: %w", err)
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
