package db

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// Evidence is a run showing a symptom, with the link to the run and the
// symptom's first evidence in it (a row of v_run_symptoms).
type Evidence struct {
	Job                     string
	BuildID                 int64
	URL                     string // the Prow view link
	Result                  prowcrawl.Result
	StartedAt               time.Time
	Edge                    string // empty when the run's release is unknown, or it is a presubmit
	Variant                 string
	Platform, Network, Arch string
	Topology, Type          string
	Symptom                 string
	Hits                    int
	File                    string
	Line                    int
	Excerpt                 string
	At                      time.Time
}

// RunEvidence returns the runs within b that show symptom and count in its
// rates (finished, their upgrade begun or not known not to have), newest
// first, at most limit of them (all when limit <= 0). A non-empty edgeKey
// ("4.13->4.14 minor") keeps the runs on that edge.
func (d *DB) RunEvidence(ctx context.Context, symptom, edgeKey string, b Bounds, limit int) ([]Evidence, error) {
	c := onCopies("rs")
	cond, args, err := b.whereDays(c)
	if err != nil {
		return nil, fmt.Errorf("evidence of %s: %w", symptom, err)
	}
	var w where
	if edgeKey != "" {
		w.add(`r.edge = ?`, edgeKey)
	}
	if limit <= 0 {
		limit = -1
	}
	// Without an edge, the newest rows are chosen from run_symptoms_days
	// alone (it holds the run's start and build id), and only those runs
	// are looked up; an edge is the run's, so each run is looked up first.
	from, sub := `run_symptoms rs INDEXED BY run_symptoms_days`, []any(nil)
	if edgeKey == "" {
		from = `(SELECT rs.rowid AS id FROM run_symptoms rs INDEXED BY run_symptoms_days
	WHERE rs.symptom_id = ? AND ` + c.counted() + ` AND ` + c.started() + cond + `
	ORDER BY rs.run_started_at DESC, rs.build_id DESC LIMIT ?) AS k
CROSS JOIN run_symptoms rs ON rs.rowid = k.id`
		sub = append(append([]any{symptom}, args...), limit)
	}
	query := `SELECT r.job, r.build_id, r.url, r.result, r.started_at, coalesce(r.edge, ''), coalesce(r.variant, ''),
	coalesce(j.platform, ''), coalesce(j.network, ''), coalesce(j.arch, ''), coalesce(j.topology, ''), coalesce(j.type, ''),
	rs.symptom_id, rs.hits, coalesce(rs.file, ''), coalesce(rs.line, 0), coalesce(rs.excerpt, ''), rs.at
FROM ` + from + `
CROSS JOIN runs r ON r.job = rs.job AND r.build_id = rs.build_id
CROSS JOIN jobs j ON j.name = r.job
WHERE rs.symptom_id = ? AND ` + c.counted() + ` AND ` + c.started() + cond + w.sql() + `
ORDER BY r.started_at DESC, r.build_id DESC
LIMIT ?`
	out, err := queryList(ctx, d.db, func(rows *sql.Rows) (Evidence, error) {
		var e Evidence
		var started, at sql.NullString
		if err := rows.Scan(&e.Job, &e.BuildID, &e.URL, &e.Result, &started, &e.Edge, &e.Variant, &e.Platform, &e.Network,
			&e.Arch, &e.Topology, &e.Type, &e.Symptom, &e.Hits, &e.File, &e.Line, &e.Excerpt, &at); err != nil {
			return e, err
		}
		var err error
		if e.StartedAt, err = parseTime(started); err != nil {
			return e, err
		}
		e.At, err = parseTime(at)
		return e, err
	}, query, append(append(append(append(sub, symptom), args...), w.args...), limit)...)
	if err != nil {
		return nil, fmt.Errorf("evidence of %s: %w", symptom, err)
	}
	return out, nil
}

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
	// The window's rows of the symptom from run_symptoms_days (the
	// copies of their runs' columns say which count); only those runs are
	// looked up.
	c := onCopies("rs")
	cond, args, err := b.whereDays(c)
	if err != nil {
		return nil, fmt.Errorf("runs of %s: %w", symptom, err)
	}
	out, err := queryList(ctx, d.db, func(rows *sql.Rows) (SymptomRun, error) {
		var r SymptomRun
		var started, finished, at, last sql.NullString
		if err := rows.Scan(&r.Job, &r.BuildID, &r.URL, &r.Result, &started, &finished, &r.Edge, &r.Release, &r.FromRelease,
			&r.Upgrade, &r.FromVersion, &r.ToVersion, &r.UpgradeState, &r.Platform, &r.Network, &r.Arch, &at, &last); err != nil {
			return r, err
		}
		for _, f := range []struct {
			dst *time.Time
			src sql.NullString
		}{{&r.StartedAt, started}, {&r.FinishedAt, finished}, {&r.At, at}, {&r.LastAt, last}} {
			var err error
			if *f.dst, err = parseTime(f.src); err != nil {
				return r, err
			}
		}
		return r, nil
	}, `SELECT r.job, r.build_id, r.url, r.result, r.started_at, r.finished_at,
	coalesce(r.edge, ''), coalesce(r.release, ''), coalesce(r.from_release, ''), coalesce(r.upgrade, ''),
	coalesce(r.from_version, ''), coalesce(r.to_version, ''), coalesce(r.upgrade_state, ''),
	coalesce(j.platform, ''), coalesce(j.network, ''), coalesce(j.arch, ''), rs.at, rs.last_at
FROM run_symptoms rs INDEXED BY run_symptoms_days
CROSS JOIN runs r ON r.job = rs.job AND r.build_id = rs.build_id
CROSS JOIN jobs j ON j.name = r.job
WHERE rs.symptom_id = ? AND `+c.counted()+` AND `+c.started()+` AND j.type IS NOT 'presubmit'`+cond+`
ORDER BY r.started_at, r.job, r.build_id`, append([]any{symptom}, args...)...)
	if err != nil {
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
// runs within b that rates count, and those showing symptom.
func (d *DB) EdgeFromVersions(ctx context.Context, symptom string, b Bounds) ([]EdgeFromVersion, error) {
	runs, err := d.SymptomRuns(ctx, symptom, b)
	if err != nil {
		return nil, fmt.Errorf("from-versions: %w", err)
	}
	return d.EdgeFromVersionsOf(ctx, runs, b)
}

// EdgeFromVersionsOf is EdgeFromVersions of the runs showing the symptom
// that SymptomRuns read for b (a page reads them once). The runs come from
// runs_days, which covers what is read of them, grouped by day as it is
// read (no sort of the window's runs).
func (d *DB) EdgeFromVersionsOf(ctx context.Context, shows []SymptomRun, b Bounds) ([]EdgeFromVersion, error) {
	cond, args, err := b.whereDays(onRuns("r"))
	if err != nil {
		return nil, fmt.Errorf("from-versions: %w", err)
	}
	// A run's edge follows from its job and edge columns (prowcrawl.RunKeys), so the
	// days are grouped without it, in the index's order, and summed here;
	// the edge of a group is the one its runs hold, unless they hold two (a
	// database whose edges two versions derived), when SQLite groups by it
	// too, with a sort.
	platforms := map[string]string{}
	err = queryEach(ctx, d.db, func(rows *sql.Rows) error {
		var name, platform string
		if err := rows.Scan(&name, &platform); err != nil {
			return err
		}
		platforms[name] = platform
		return nil
	}, `SELECT name, coalesce(platform, '') FROM jobs`)
	if err != nil {
		return nil, fmt.Errorf("from-versions: %w", err)
	}
	type fvKey struct{ edge, release, from, upgrade, platform, fromVersion string }
	counts := map[fvKey]int{}
	mixed := false
	err = queryEach(ctx, d.db, func(rows *sql.Rows) error {
		var job, lo, hi string
		var k fvKey
		var n int
		if err := rows.Scan(&job, &k.release, &k.from, &k.upgrade, &k.fromVersion, &lo, &hi, &n); err != nil {
			return err
		}
		platform, ok := platforms[job]
		if !ok {
			return nil // as the join with jobs leaves it out
		}
		mixed = mixed || lo != hi
		k.edge, k.platform = lo, platform
		counts[k] += n
		return nil
	}, `SELECT r.job, coalesce(r.release, ''), coalesce(r.from_release, ''), coalesce(r.upgrade, ''),
	coalesce(r.from_version, ''), min(r.edge), max(r.edge), count(*)
FROM runs r INDEXED BY runs_days
WHERE `+countedRun+` AND `+startedRun+` AND r.edge IS NOT NULL`+cond+`
GROUP BY substr(r.started_at, 1, 10), r.job, r.release, r.from_release, r.upgrade, r.from_version`, args...)
	if err != nil {
		return nil, fmt.Errorf("from-versions: %w", err)
	}
	if !mixed {
		with := map[fvKey]int{}
		for _, r := range shows {
			if r.Edge != "" {
				with[fvKey{r.Edge, r.Release, r.FromRelease, r.Upgrade, r.Platform, r.FromVersion}]++
			}
		}
		out := make([]EdgeFromVersion, 0, len(counts))
		for k, n := range counts {
			out = append(out, EdgeFromVersion{Edge: k.edge, Release: k.release, FromRelease: k.from, Upgrade: k.upgrade,
				Platform: k.platform, FromVersion: k.fromVersion, Runs: n, WithSymptom: with[k]})
		}
		slices.SortFunc(out, func(a, b EdgeFromVersion) int {
			return cmp.Or(cmp.Compare(a.Edge, b.Edge), cmp.Compare(a.Platform, b.Platform), cmp.Compare(a.FromVersion, b.FromVersion),
				cmp.Compare(a.Release, b.Release), cmp.Compare(a.FromRelease, b.FromRelease), cmp.Compare(a.Upgrade, b.Upgrade))
		})
		return out, nil
	}
	with := map[fvKey]int{}
	for _, r := range shows {
		if r.Edge != "" {
			with[fvKey{r.Edge, r.Release, r.FromRelease, r.Upgrade, r.Platform, r.FromVersion}]++
		}
	}
	out, err := queryList(ctx, d.db, func(rows *sql.Rows) (EdgeFromVersion, error) {
		var e EdgeFromVersion
		err := rows.Scan(&e.Edge, &e.Release, &e.FromRelease, &e.Upgrade, &e.Platform, &e.FromVersion, &e.Runs)
		e.WithSymptom = with[fvKey{e.Edge, e.Release, e.FromRelease, e.Upgrade, e.Platform, e.FromVersion}]
		return e, err
	}, `SELECT coalesce(r.edge, ''), coalesce(r.release, ''), coalesce(r.from_release, ''),
	coalesce(r.upgrade, ''), coalesce(j.platform, ''), coalesce(r.from_version, ''), sum(r.runs)
FROM (
	SELECT r.job, r.release, r.from_release, r.upgrade, r.from_version, r.edge, count(*) AS runs
	FROM runs r INDEXED BY runs_days
	WHERE `+countedRun+` AND `+startedRun+` AND r.edge IS NOT NULL`+cond+`
	GROUP BY substr(r.started_at, 1, 10), r.job, r.release, r.from_release, r.upgrade, r.from_version, r.edge
) r CROSS JOIN jobs j ON j.name = r.job
GROUP BY 1, 2, 3, 4, 5, 6
ORDER BY 1, 5, 6`, args...)
	if err != nil {
		return nil, fmt.Errorf("from-versions: %w", err)
	}
	return out, nil
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
	cond, args, err := b.whereDays(c)
	if err != nil {
		return nil, fmt.Errorf("tests failed with %s: %w", symptom, err)
	}
	rows, err := d.db.QueryContext(ctx, `SELECT t.suite, t.name, count(*)
FROM run_symptoms rs INDEXED BY run_symptoms_days
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
