package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// The scopes and comparisons of symptom_verdicts and test_flake_rates.
const (
	ScopeJob     = "job"
	ScopeEdge    = "edge"
	ScopeVariant = "variant"

	CompareRelease = "release"
	CompareWindow  = "window"
)

// countedRun is the SQL condition on runs r that the run counts: it finished,
// successfully or not. Aborted and pending runs never count.
const countedRun = `r.result IN ('success', 'failure', 'error')`

// variantKey is the SQL of a run's variant key: its edge, then its job's
// platform, network and arch ("-" when NULL). Runs r and jobs j.
const variantKey = `r.edge || ' ' || coalesce(j.platform, '-') || ' ' || coalesce(j.network, '-') || ' ' || coalesce(j.arch, '-')`

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
// time when there is none. A start no run can have (after a day past the
// clock, or not a time) is passed over: one run dated 2099 must not move
// every window that ends at the newest run.
func (d *DB) NewestRunStart(ctx context.Context) (time.Time, error) {
	var newest sql.NullString
	if err := d.db.QueryRowContext(ctx, `SELECT started_at FROM runs INDEXED BY runs_started_at
WHERE started_at IS NOT NULL AND `+plausibleSQL("started_at")+` ORDER BY started_at DESC LIMIT 1`).Scan(&newest); err != nil && !errors.Is(err, sql.ErrNoRows) {
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

// SymptomVerdict is a row of symptom_verdicts: a symptom in a scope key,
// its sample against a basis, and the verdict. A rate is NaN (NULL) when its
// side has no runs; P is NaN when either side has none.
type SymptomVerdict struct {
	Symptom    string
	Scope      string // job, edge or variant
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
// new one, never a mix.
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
	p_value, verdict, computed_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
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
			nullFloat(v.P), v.Verdict, at); err != nil {
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

// Filter narrows what the readers return. Zero fields do not filter.
type Filter struct {
	Symptom string // a symptom id
	Scope   string // job, edge or variant
	Key     string // a scope key: a job name, an edge ("4.13->4.14 minor") or a variant
	// Job keeps what concerns one job: for verdicts, the job's own rows and
	// those of the edges and variants its runs are on; for rates, only the
	// job's runs are counted.
	Job string
	// Since keeps, for rates, the runs started at or after it; for
	// verdicts, the rows computed at or after it.
	Since time.Time
}

// check rejects a scope that does not exist, which would select nothing.
func (f Filter) check() error {
	switch f.Scope {
	case "", ScopeJob, ScopeEdge, ScopeVariant:
		return nil
	}
	return fmt.Errorf("unknown scope %q (want job, edge or variant)", f.Scope)
}

// where builds the conditions of a query.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

func (w *where) sql() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " AND " + strings.Join(w.conds, " AND ")
}

// analysisWhere is the conditions of f on a table of the analysis, alias t:
// the scope, the key, the job and the time it was computed.
func (f Filter) analysisWhere(t string) *where {
	w := &where{}
	if f.Scope != "" {
		w.add(t+`.scope = ?`, f.Scope)
	}
	if f.Key != "" {
		w.add(t+`.scope_key = ?`, f.Key)
	}
	if f.Job != "" {
		// The job's edges, from the index that holds them.
		edges := `SELECT DISTINCT r.edge FROM runs r INDEXED BY runs_key WHERE r.job = ?`
		w.add(`(`+t+`.scope = 'job' AND `+t+`.scope_key = ?
	OR `+t+`.scope = 'edge' AND `+t+`.scope_key IN (`+edges+`)
	OR `+t+`.scope = 'variant' AND `+t+`.scope_key IN (
		SELECT `+variantKey+` FROM (`+edges+`) r JOIN jobs j ON j.name = ?))`,
			f.Job, f.Job, f.Job, f.Job)
	}
	if !f.Since.IsZero() {
		w.add(t+`.computed_at >= ?`, formatTime(f.Since))
	}
	return w
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
	rows, err := d.db.QueryContext(ctx, `SELECT v.symptom_id, v.scope, v.scope_key, v.comparison,
	v.sample_label, v.basis_label, v.sample_runs, v.sample_hits, v.basis_runs, v.basis_hits,
	v.sample_rate, v.basis_rate, v.p_value, v.verdict, v.computed_at, s.title, coalesce(s.bug, '')
FROM symptom_verdicts v JOIN symptoms s ON s.id = v.symptom_id
WHERE 1`+w.sql()+`
ORDER BY v.symptom_id, v.scope, v.scope_key, v.comparison`, w.args...)
	if err != nil {
		return nil, fmt.Errorf("verdicts: %w", err)
	}
	defer rows.Close()
	var out []SymptomVerdict
	for rows.Next() {
		var v SymptomVerdict
		var sampleRate, basisRate, p sql.NullFloat64
		var at sql.NullString
		if err := rows.Scan(&v.Symptom, &v.Scope, &v.Key, &v.Comparison, &v.SampleLabel, &v.BasisLabel,
			&v.SampleRuns, &v.SampleHits, &v.BasisRuns, &v.BasisHits, &sampleRate, &basisRate, &p,
			&v.Verdict, &at, &v.Title, &v.Bug); err != nil {
			return nil, fmt.Errorf("verdicts: %w", err)
		}
		v.SampleRate, v.BasisRate, v.P = floatOrNaN(sampleRate), floatOrNaN(basisRate), floatOrNaN(p)
		if v.ComputedAt, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("verdicts: %w", err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("verdicts: %w", err)
	}
	return out, nil
}

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

// edgeOf is the SQL of the edge of the runs grouped as g (columns release,
// from_release and upgrade): the expression of runs.edge. Computed from the
// columns, the edge lets SQLite read runs from a covering index, which it
// never does for a query that names a virtual column.
func edgeOf(g string) string {
	return `CASE
		WHEN ` + g + `.release IS NULL THEN NULL
		WHEN ` + g + `.from_release IS NULL OR ` + g + `.from_release = ` + g + `.release THEN ` + g + `.release || ' ' || coalesce(` + g + `.upgrade, '-')
		ELSE ` + g + `.from_release || '->' || ` + g + `.release || ' ' || coalesce(` + g + `.upgrade, '-')
	END`
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
		{ScopeEdge, edgeOf("g"), ``, ` AND r.release IS NOT NULL`, `r.edge = ?`},
		{ScopeVariant, edgeOf("g") + ` || ' ' || coalesce(j.platform, '-') || ' ' || coalesce(j.network, '-') || ' ' || coalesce(j.arch, '-')`,
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

// Evidence is a run showing a symptom, with the link to the run and the
// symptom's first evidence in it (a row of v_run_symptoms).
type Evidence struct {
	Job                     string
	BuildID                 int64
	URL                     string // the Prow view link
	Result                  string
	StartedAt               time.Time
	Edge                    string // empty when the run's release is unknown
	Platform, Network, Arch string
	Symptom                 string
	Hits                    int
	File                    string
	Line                    int
	Excerpt                 string
	At                      time.Time
}

// RunEvidence returns the runs that show symptom, newest first, at most
// limit of them (all when limit <= 0). A non-empty edgeKey ("4.13->4.14
// minor") keeps the runs on that edge.
func (d *DB) RunEvidence(ctx context.Context, symptom, edgeKey string, limit int) ([]Evidence, error) {
	var w where
	if edgeKey != "" {
		w.add(`edge = ?`, edgeKey)
	}
	if limit <= 0 {
		limit = -1
	}
	rows, err := d.db.QueryContext(ctx, `SELECT job, build_id, url, result, started_at, coalesce(edge, ''),
	coalesce(platform, ''), coalesce(network, ''), coalesce(arch, ''), symptom_id, hits, coalesce(file, ''),
	coalesce(line, 0), coalesce(excerpt, ''), at
FROM v_run_symptoms
WHERE symptom_id = ?`+w.sql()+`
ORDER BY started_at DESC, build_id DESC
LIMIT ?`, append(append([]any{symptom}, w.args...), limit)...)
	if err != nil {
		return nil, fmt.Errorf("evidence of %s: %w", symptom, err)
	}
	defer rows.Close()
	var out []Evidence
	for rows.Next() {
		var e Evidence
		var started, at sql.NullString
		if err := rows.Scan(&e.Job, &e.BuildID, &e.URL, &e.Result, &started, &e.Edge, &e.Platform, &e.Network,
			&e.Arch, &e.Symptom, &e.Hits, &e.File, &e.Line, &e.Excerpt, &at); err != nil {
			return nil, fmt.Errorf("evidence of %s: %w", symptom, err)
		}
		if e.StartedAt, err = parseTime(started); err != nil {
			return nil, fmt.Errorf("evidence of %s: %w", symptom, err)
		}
		if e.At, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("evidence of %s: %w", symptom, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("evidence of %s: %w", symptom, err)
	}
	return out, nil
}

// WeeklyRate is a symptom's rate on an edge in one ISO week.
type WeeklyRate struct {
	Edge      string
	Week      string    // the ISO week, "2026-W47"
	WeekStart time.Time // its Monday, 00:00 UTC
	Runs      int       // finished runs started that week
	Hits      int       // of those, the runs showing the symptom
	Rate      float64   // Hits / Runs
}

// WeeklyRates returns symptom's rate per edge and ISO week of the runs'
// start, over every finished run with a known edge and start, ordered by
// edge and week: a trend to chart.
func (d *DB) WeeklyRates(ctx context.Context, symptom string) ([]WeeklyRate, error) {
	// The runs per week are counted in runs_edge, by edge and week, one
	// range of the index each (edges found by skipping through it, weeks
	// from the edge's first run to its last): no sort of every run, nor a
	// lookup of run_symptoms for every run. The hits come from the
	// symptom's evidence.
	rows, err := d.db.QueryContext(ctx, `WITH RECURSIVE
edges (edge) AS (
	SELECT min(r.edge) FROM runs r WHERE r.edge IS NOT NULL
	UNION ALL
	SELECT (SELECT min(r.edge) FROM runs r WHERE r.edge > e.edge) FROM edges e WHERE e.edge IS NOT NULL
),
weeks (edge, monday, last) AS (
	SELECT e.edge,
		date((SELECT min(r.started_at) FROM runs r WHERE r.edge = e.edge), '-6 days', 'weekday 1'),
		(SELECT max(r.started_at) FROM runs r WHERE r.edge = e.edge)
	FROM edges e WHERE e.edge IS NOT NULL
	UNION ALL
	SELECT w.edge, date(w.monday, '+7 days'), w.last FROM weeks w WHERE date(w.monday, '+7 days') <= w.last
)
SELECT t.edge, t.week, t.monday, t.runs, coalesce(h.hits, 0)
FROM (
	SELECT w.edge, strftime('%G-W%V', w.monday) AS week, w.monday, (
		SELECT count(*) FROM runs r INDEXED BY runs_edge
		WHERE r.edge = w.edge AND r.started_at >= w.monday AND r.started_at < date(w.monday, '+7 days')
			AND `+"+"+countedRun+`
	) AS runs
	FROM weeks w
) t
LEFT JOIN (
	SELECT r.edge, strftime('%G-W%V', r.started_at) AS week, count(*) AS hits
	FROM run_symptoms rs JOIN runs r INDEXED BY runs_key ON r.job = rs.job AND r.build_id = rs.build_id
	WHERE rs.symptom_id = ? AND `+"+"+countedRun+` AND r.edge IS NOT NULL AND r.started_at IS NOT NULL
	GROUP BY 1, 2
) h ON h.edge = t.edge AND h.week = t.week
WHERE t.runs > 0
ORDER BY t.edge, t.week`, symptom)
	if err != nil {
		return nil, fmt.Errorf("weekly rates of %s: %w", symptom, err)
	}
	defer rows.Close()
	var out []WeeklyRate
	for rows.Next() {
		var w WeeklyRate
		var monday string
		if err := rows.Scan(&w.Edge, &w.Week, &monday, &w.Runs, &w.Hits); err != nil {
			return nil, fmt.Errorf("weekly rates of %s: %w", symptom, err)
		}
		if w.WeekStart, err = time.Parse(time.DateOnly, monday); err != nil {
			return nil, fmt.Errorf("weekly rates of %s: %w", symptom, err)
		}
		w.Rate = float64(w.Hits) / float64(w.Runs)
		out = append(out, w)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("weekly rates of %s: %w", symptom, err)
	}
	return out, nil
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
	rows, err := d.db.QueryContext(ctx, `SELECT f.scope, f.scope_key, f.suite, f.name, f.runs, f.failures, f.flakes,
	f.flake_rate, f.computed_at
FROM test_flake_rates f
WHERE 1`+w.sql()+`
ORDER BY f.flake_rate DESC, f.flakes DESC, f.scope, f.scope_key, f.suite, f.name`, w.args...)
	if err != nil {
		return nil, fmt.Errorf("test flake rates: %w", err)
	}
	defer rows.Close()
	var out []TestFlakeRate
	for rows.Next() {
		var r TestFlakeRate
		var at sql.NullString
		if err := rows.Scan(&r.Scope, &r.Key, &r.Suite, &r.Name, &r.Runs, &r.Failures, &r.Flakes, &r.FlakeRate, &at); err != nil {
			return nil, fmt.Errorf("test flake rates: %w", err)
		}
		if r.ComputedAt, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("test flake rates: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("test flake rates: %w", err)
	}
	return out, nil
}
