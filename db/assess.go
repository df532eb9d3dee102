package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// SymptomRun is a finished run that shows a symptom, with what the
// assessment of the symptom asks of it: where it ran, what it upgraded,
// how it ended, and when the symptom's evidence began and ended.
type SymptomRun struct {
	Job                           string
	BuildID                       int64
	URL, Result                   string
	StartedAt, FinishedAt         time.Time
	Edge                          string // empty when the run's release is unknown
	Release, FromRelease, Upgrade string
	FromVersion, ToVersion        string
	UpgradeState                  string // Completed, Partial or empty
	Platform, Network, Arch       string // the job's
	At, LastAt                    time.Time
}

// SymptomRuns reads the runs within b that show symptom and count in its
// rates (finished, their upgrade begun or not known not to have, of a job
// that is no presubmit), oldest first.
func (d *DB) SymptomRuns(ctx context.Context, symptom string, b Bounds) ([]SymptomRun, error) {
	// The window's rows of the symptom from run_symptoms_window (the
	// copies of their runs' columns say which count); only those runs are
	// looked up.
	c := onCopies("rs")
	cond, args, err := b.whereOn(c)
	if err != nil {
		return nil, fmt.Errorf("runs of %s: %w", symptom, err)
	}
	rows, err := d.db.QueryContext(ctx, `SELECT r.job, r.build_id, r.url, r.result, r.started_at, r.finished_at,
	coalesce(r.edge, ''), coalesce(r.release, ''), coalesce(r.from_release, ''), coalesce(r.upgrade, ''),
	coalesce(r.from_version, ''), coalesce(r.to_version, ''), coalesce(r.upgrade_state, ''),
	coalesce(j.platform, ''), coalesce(j.network, ''), coalesce(j.arch, ''), rs.at, rs.last_at
FROM run_symptoms rs INDEXED BY run_symptoms_window
CROSS JOIN runs r ON r.job = rs.job AND r.build_id = rs.build_id
CROSS JOIN jobs j ON j.name = r.job
WHERE rs.symptom_id = ? AND `+c.counted()+` AND `+c.started()+` AND j.type IS NOT 'presubmit'`+cond+`
ORDER BY r.started_at, r.job, r.build_id`, append([]any{symptom}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("runs of %s: %w", symptom, err)
	}
	defer rows.Close()
	var out []SymptomRun
	for rows.Next() {
		var r SymptomRun
		var started, finished, at, last sql.NullString
		if err := rows.Scan(&r.Job, &r.BuildID, &r.URL, &r.Result, &started, &finished, &r.Edge, &r.Release, &r.FromRelease,
			&r.Upgrade, &r.FromVersion, &r.ToVersion, &r.UpgradeState, &r.Platform, &r.Network, &r.Arch, &at, &last); err != nil {
			return nil, fmt.Errorf("runs of %s: %w", symptom, err)
		}
		for _, f := range []struct {
			dst *time.Time
			src sql.NullString
		}{{&r.StartedAt, started}, {&r.FinishedAt, finished}, {&r.At, at}, {&r.LastAt, last}} {
			if *f.dst, err = parseTime(f.src); err != nil {
				return nil, fmt.Errorf("runs of %s: %w", symptom, err)
			}
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("runs of %s: %w", symptom, err)
	}
	return out, nil
}

// EdgeFromVersion counts the finished runs of one edge, platform and
// from-version, and those of them that show a symptom.
type EdgeFromVersion struct {
	Edge, Release, FromRelease, Upgrade string
	Platform                            string
	FromVersion                         string
	Runs, WithSymptom                   int
}

// EdgeFromVersions counts, for every edge, platform and from-version, the
// runs within b that rates count, and those showing symptom. The runs come
// from runs_window, which covers what is read of them; those showing the
// symptom from run_symptoms_window, each of them looked up (for its edge
// and from-version), not each run of the window.
func (d *DB) EdgeFromVersions(ctx context.Context, symptom string, b Bounds) ([]EdgeFromVersion, error) {
	cond, args, err := b.where()
	if err != nil {
		return nil, fmt.Errorf("from-versions: %w", err)
	}
	c := onCopies("rs")
	hitCond, hitArgs, err := b.whereOn(c)
	if err != nil {
		return nil, fmt.Errorf("from-versions: %w", err)
	}
	const key = `coalesce(r.edge, '') AS edge, coalesce(r.release, '') AS release, coalesce(r.from_release, '') AS from_release,
	coalesce(r.upgrade, '') AS upgrade, coalesce(j.platform, '') AS platform, coalesce(r.from_version, '') AS from_version`
	rows, err := d.db.QueryContext(ctx, `WITH w AS (
	SELECT `+key+`, count(*) AS runs
	FROM runs r INDEXED BY runs_window CROSS JOIN jobs j ON j.name = r.job
	WHERE `+countedRun+` AND `+startedRun+` AND r.edge IS NOT NULL`+cond+`
	GROUP BY 1, 2, 3, 4, 5, 6
), h AS (
	SELECT `+key+`, count(*) AS runs
	FROM run_symptoms rs INDEXED BY run_symptoms_window
	CROSS JOIN runs r ON r.job = rs.job AND r.build_id = rs.build_id
	CROSS JOIN jobs j ON j.name = r.job
	WHERE rs.symptom_id = ? AND `+c.counted()+` AND `+c.started()+` AND r.edge IS NOT NULL`+hitCond+`
	GROUP BY 1, 2, 3, 4, 5, 6
)
SELECT w.edge, w.release, w.from_release, w.upgrade, w.platform, w.from_version, w.runs, coalesce(h.runs, 0)
FROM w LEFT JOIN h USING (edge, release, from_release, upgrade, platform, from_version)
ORDER BY 1, 5, 6`, append(append(args, symptom), hitArgs...)...)
	if err != nil {
		return nil, fmt.Errorf("from-versions: %w", err)
	}
	defer rows.Close()
	var out []EdgeFromVersion
	for rows.Next() {
		var e EdgeFromVersion
		if err := rows.Scan(&e.Edge, &e.Release, &e.FromRelease, &e.Upgrade, &e.Platform, &e.FromVersion, &e.Runs, &e.WithSymptom); err != nil {
			return nil, fmt.Errorf("from-versions: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// DisruptionSample is one finished run's disruption of one backend, its
// files summed, on an edge where a symptom shows, and whether the run
// shows it.
type DisruptionSample struct {
	Backend, Edge string
	Shows         bool
	Seconds       float64 // NaN when no file gave a duration
}

// TestFailedWith is a test that failed (or flaked) in runs showing a symptom.
type TestFailedWith struct {
	Suite, Name string
	Runs        int // runs showing the symptom in which it failed
}

// TestsFailedWith reads the tests that failed in the runs within b that
// show symptom and count in its rates, the most often first, at most limit.
func (d *DB) TestsFailedWith(ctx context.Context, symptom string, b Bounds, limit int) ([]TestFailedWith, error) {
	c := onCopies("rs")
	cond, args, err := b.whereOn(c)
	if err != nil {
		return nil, fmt.Errorf("tests failed with %s: %w", symptom, err)
	}
	rows, err := d.db.QueryContext(ctx, `SELECT t.suite, t.name, count(*)
FROM run_symptoms rs INDEXED BY run_symptoms_window
CROSS JOIN jobs j ON j.name = rs.job
CROSS JOIN tests t ON t.job = rs.job AND t.build_id = rs.build_id
WHERE rs.symptom_id = ? AND t.status = 'fail' AND `+c.counted()+` AND `+c.started()+` AND j.type IS NOT 'presubmit'`+cond+`
GROUP BY 1, 2 ORDER BY 3 DESC, 2, 1 LIMIT ?`, append(append([]any{symptom}, args...), limit)...)
	if err != nil {
		return nil, fmt.Errorf("tests failed with %s: %w", symptom, err)
	}
	defer rows.Close()
	var out []TestFailedWith
	for rows.Next() {
		var f TestFailedWith
		if err := rows.Scan(&f.Suite, &f.Name, &f.Runs); err != nil {
			return nil, fmt.Errorf("tests failed with %s: %w", symptom, err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}
