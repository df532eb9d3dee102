package db

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// RunGroup counts the finished runs of one job on one edge. The edge is the
// runs' own (release, from_release and upgrade of runs); Release is empty
// when the runs do not know it. The job's columns are the job's. Runs,
// Failed, Sample and Basis count the runs whose upgrade began (or is not
// known not to have); LeftOut and its window counts the others.
type RunGroup struct {
	Job                           string
	Release, FromRelease, Upgrade string
	Platform, Network, Arch       string
	Topology, Stack, Type         string
	// RuleSet is the set of rule versions that classified the runs (0:
	// none did): whether they count for a rule (AnalysisCounts.Population).
	RuleSet                     int64
	Runs                        int // finished runs counted
	Failed                      int // of those, the runs that did not succeed
	Sample, Basis               int // those started in the sample and in the basis window
	LeftOut                     int // finished runs counted apart: upgrade never began, or infrastructure
	SampleLeftOut, BasisLeftOut int // of those, the ones in each window
	Infra                       int // of LeftOut, the infrastructure failures (Sippy's N, n)
	// First and Last are the start times of the first and last run
	// counted; zero without runs.
	First, Last time.Time
}

// Add adds the counts of o to g's, and widens g's First and Last to take in
// o's; g's job and edge stay its own. The days of a group are summed with
// it, and the analysis sums groups into scope keys with it.
func (g *RunGroup) Add(o RunGroup) {
	g.Runs += o.Runs
	g.Failed += o.Failed
	g.Sample += o.Sample
	g.Basis += o.Basis
	g.LeftOut += o.LeftOut
	g.SampleLeftOut += o.SampleLeftOut
	g.BasisLeftOut += o.BasisLeftOut
	g.Infra += o.Infra
	if !o.First.IsZero() && (g.First.IsZero() || o.First.Before(g.First)) {
		g.First = o.First
	}
	if o.Last.After(g.Last) {
		g.Last = o.Last
	}
}

// JobRow is the jobs row of the group's job.
func (g RunGroup) JobRow() prowcrawl.Job {
	return prowcrawl.Job{Name: g.Job, Type: g.Type, Platform: g.Platform, Network: g.Network, Arch: g.Arch, Topology: g.Topology, Stack: g.Stack}
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

// startedRun is the SQL condition on runs r that the run is in the rates:
// its upgrade began or is not known not to have, and it is no
// infrastructure failure (prowcrawl.PopulationOf). leftOutRun is its
// opposite: the finished runs counted apart, and infraRun those of them
// that failed for CI's infrastructure.
const (
	startedRun = `r.upgrade_started IS NOT 0 AND coalesce(r.overall_result, '') NOT IN ('N', 'n')`
	leftOutRun = `(r.upgrade_started = 0 OR r.overall_result IN ('N', 'n'))`
	infraRun   = `r.overall_result IN ('N', 'n')`
)

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
				&g.Platform, &g.Network, &g.Arch, &g.Topology, &g.Stack, &g.Type,
				&g.Runs, &g.Failed, &g.Sample, &g.Basis, &g.LeftOut, &g.SampleLeftOut, &g.BasisLeftOut, &g.Infra,
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
	coalesce(j.platform, ''), coalesce(j.network, ''), coalesce(j.arch, ''), coalesce(j.topology, ''), coalesce(j.network_stack, ''), coalesce(j.type, ''),
	g.runs, g.failed, g.sample, g.basis, g.left_out, g.sample_left_out, g.basis_left_out, g.infra, g.first, g.last
FROM (
	SELECT r.job, coalesce(r.release, '') AS release, coalesce(r.from_release, '') AS from_release,
		coalesce(r.upgrade, '') AS upgrade, coalesce(r.rule_set, 0) AS rule_set,
		count(CASE WHEN `+startedRun+` THEN 1 END) AS runs,
		count(CASE WHEN `+startedRun+` AND r.result <> 'success' THEN 1 END) AS failed,
		count(CASE WHEN `+startedRun+` AND `+inSample+` THEN 1 END) AS sample,
		count(CASE WHEN `+startedRun+` AND `+inBasis+` THEN 1 END) AS basis,
		count(CASE WHEN `+leftOutRun+` THEN 1 END) AS left_out,
		count(CASE WHEN `+leftOutRun+` AND `+inSample+` THEN 1 END) AS sample_left_out,
		count(CASE WHEN `+leftOutRun+` AND `+inBasis+` THEN 1 END) AS basis_left_out,
		count(CASE WHEN `+infraRun+` THEN 1 END) AS infra,
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

// The counts of a window are read by day (migration 0019): runs_days and
// run_symptoms_days begin with the day of the run's start, then the job
// and the edge, so that SQLite groups a window's rows by day, job and edge
// as it reads them, without sorting them; the days are summed here into
// the groups by job and edge, and into the weeks.

// edgeGroup is a job and one of its runs' edges, and for runs the set of
// rule versions that classified them.
type edgeGroup struct {
	job, release, fromRelease, upgrade string
	ruleSet                            int64
}

func (g edgeGroup) compare(o edgeGroup) int {
	return cmp.Or(cmp.Compare(g.job, o.job), cmp.Compare(g.release, o.release),
		cmp.Compare(g.fromRelease, o.fromRelease), cmp.Compare(g.upgrade, o.upgrade), cmp.Compare(g.ruleSet, o.ruleSet))
}

// weekKey is a symptom (empty: the runs), a group and an ISO week.
type weekKey struct {
	symptom string
	edgeGroup
	week string
}

// isoWeek is the ISO week of day ("2026-11-05": "2026-W45") and its Monday,
// as SQLite's strftime('%G-W%V') and date(day, '-6 days', 'weekday 1')
// compute them. ok is false for a day that is not a date.
func isoWeek(day string) (week string, monday time.Time, ok bool) {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return "", time.Time{}, false
	}
	y, w := t.ISOWeek()
	return fmt.Sprintf("%04d-W%02d", y, w), t.AddDate(0, 0, -((int(t.Weekday()) + 6) % 7)), true
}

// addWeek adds n runs to the week of day.
func addWeek(weeks map[weekKey]*WeekGroup, symptom string, g edgeGroup, day sql.NullString, n int) {
	if n == 0 || !day.Valid {
		return
	}
	week, monday, ok := isoWeek(day.String)
	if !ok {
		return
	}
	k := weekKey{symptom, g, week}
	w := weeks[k]
	if w == nil {
		w = &WeekGroup{Symptom: symptom, Job: g.job, Release: g.release, FromRelease: g.fromRelease, Upgrade: g.upgrade,
			RuleSet: g.ruleSet, Week: week, Monday: monday}
		weeks[k] = w
	}
	w.Runs += n
}

// sortedWeeks are the weeks in the order of their keys.
func sortedWeeks(weeks map[weekKey]*WeekGroup) []WeekGroup {
	keys := slices.SortedFunc(maps.Keys(weeks), func(a, b weekKey) int {
		return cmp.Or(cmp.Compare(a.symptom, b.symptom), a.edgeGroup.compare(b.edgeGroup), cmp.Compare(a.week, b.week))
	})
	out := make([]WeekGroup, 0, len(keys))
	for _, k := range keys {
		out = append(out, *weeks[k])
	}
	return out
}

// windowArgs are the ends of the sample and basis windows, parameters ?1
// to ?4 of the counts.
func windowArgs(o CountOptions) []any {
	return []any{formatTime(o.Sample.From), formatTime(o.Sample.To), formatTime(o.Basis.From), formatTime(o.Basis.To)}
}

// windowRuns reads c.Runs (and with o.Weeks the runs' weeks) for the
// window o.Bounds, by day from runs_days.
func (c *AnalysisCounts) windowRuns(ctx context.Context, tx *sql.Tx, o CountOptions) error {
	jobs := map[string]prowcrawl.Job{}
	err := queryEach(ctx, tx, func(rows *sql.Rows) error {
		var j prowcrawl.Job
		if err := rows.Scan(&j.Name, &j.Type, &j.Platform, &j.Network, &j.Arch, &j.Topology, &j.Stack); err != nil {
			return err
		}
		jobs[j.Name] = j
		return nil
	}, `SELECT name, coalesce(type, ''), coalesce(platform, ''), coalesce(network, ''), coalesce(arch, ''), coalesce(topology, ''), coalesce(network_stack, '') FROM jobs`)
	if err != nil {
		return err
	}

	r := onRuns("r")
	cond, args, err := o.Bounds.whereDays(r)
	if err != nil {
		return err
	}
	started, left := startedRun, leftOutRun
	sample, basis := r.in("?1", "?2"), r.in("?3", "?4")
	query := `SELECT r.job, ` + r.edge() + `, coalesce(r.rule_set, 0), ` + r.day() + `,
	count(CASE WHEN ` + started + ` THEN 1 END),
	count(CASE WHEN ` + started + ` AND r.result <> 'success' THEN 1 END),
	count(CASE WHEN ` + started + ` AND ` + sample + ` THEN 1 END),
	count(CASE WHEN ` + started + ` AND ` + basis + ` THEN 1 END),
	count(CASE WHEN ` + left + ` THEN 1 END),
	count(CASE WHEN ` + left + ` AND ` + sample + ` THEN 1 END),
	count(CASE WHEN ` + left + ` AND ` + basis + ` THEN 1 END),
	count(CASE WHEN ` + infraRun + ` THEN 1 END),
	min(CASE WHEN ` + started + ` THEN r.started_at END),
	max(CASE WHEN ` + started + ` THEN r.started_at END)
FROM runs r INDEXED BY runs_days
WHERE ` + countedRun + cond + `
GROUP BY ` + r.day() + `, r.job, r.release, r.from_release, r.upgrade, r.rule_set`
	groups := map[edgeGroup]*RunGroup{}
	weeks := map[weekKey]*WeekGroup{}
	err = queryEach(ctx, tx, func(rows *sql.Rows) error {
		var g edgeGroup
		var day, first, last sql.NullString
		var n RunGroup
		if err := rows.Scan(&g.job, &g.release, &g.fromRelease, &g.upgrade, &g.ruleSet, &day, &n.Runs, &n.Failed, &n.Sample, &n.Basis,
			&n.LeftOut, &n.SampleLeftOut, &n.BasisLeftOut, &n.Infra, &first, &last); err != nil {
			return err
		}
		j, ok := jobs[g.job]
		if !ok {
			return nil // as a join with jobs leaves it out
		}
		var err error
		if n.First, err = parseTime(first); err != nil {
			return err
		}
		if n.Last, err = parseTime(last); err != nil {
			return err
		}
		t := groups[g]
		if t == nil {
			t = &RunGroup{Job: g.job, Release: g.release, FromRelease: g.fromRelease, Upgrade: g.upgrade, RuleSet: g.ruleSet,
				Platform: j.Platform, Network: j.Network, Arch: j.Arch, Topology: j.Topology, Stack: j.Stack, Type: j.Type}
			groups[g] = t
		}
		t.Add(n)
		if o.Weeks {
			addWeek(weeks, "", g, day, n.Runs)
		}
		return nil
	}, query, append(windowArgs(o), args...)...)
	if err != nil {
		return err
	}
	for _, g := range slices.SortedFunc(maps.Keys(groups), edgeGroup.compare) {
		c.Runs = append(c.Runs, *groups[g])
	}
	if o.Weeks {
		c.Weeks = append(c.Weeks, sortedWeeks(weeks)...)
	}
	return nil
}

// symptomDays reads c.Hits (and with o.Weeks the symptoms' weeks) for the
// runs o.Bounds bounds, by day from run_symptoms_days.
func (c *AnalysisCounts) symptomDays(ctx context.Context, tx *sql.Tx, o CountOptions) error {
	rs := onCopies("rs")
	cond, args, err := o.Bounds.whereDays(rs)
	if err != nil {
		return err
	}
	query := `SELECT s.id, rs.job, ` + rs.edge() + `, ` + rs.day() + `,
	count(*),
	count(CASE WHEN ` + rs.result + ` <> 'success' THEN 1 END),
	count(CASE WHEN ` + rs.in("?1", "?2") + ` THEN 1 END),
	count(CASE WHEN ` + rs.in("?3", "?4") + ` THEN 1 END)
FROM symptoms s
CROSS JOIN run_symptoms rs INDEXED BY run_symptoms_days ON rs.symptom_id = s.id
WHERE s.active = 1 AND ` + rs.counted() + ` AND ` + rs.started() + ` AND rs.rule_hash IS s.rule_hash` + cond + `
GROUP BY s.id, ` + rs.day() + `, rs.job, ` + rs.release + `, ` + rs.fromRelease + `, ` + rs.upgrade
	type hitKey struct {
		symptom string
		edgeGroup
	}
	hits := map[hitKey]*SymptomGroup{}
	weeks := map[weekKey]*WeekGroup{}
	err = queryEach(ctx, tx, func(rows *sql.Rows) error {
		var k hitKey
		var day sql.NullString
		var n SymptomGroup
		if err := rows.Scan(&k.symptom, &k.job, &k.release, &k.fromRelease, &k.upgrade, &day, &n.Runs, &n.Failed, &n.Sample, &n.Basis); err != nil {
			return err
		}
		h := hits[k]
		if h == nil {
			h = &SymptomGroup{Symptom: k.symptom, Job: k.job, Release: k.release, FromRelease: k.fromRelease, Upgrade: k.upgrade}
			hits[k] = h
		}
		h.Runs += n.Runs
		h.Failed += n.Failed
		h.Sample += n.Sample
		h.Basis += n.Basis
		if o.Weeks {
			addWeek(weeks, k.symptom, k.edgeGroup, day, n.Runs)
		}
		return nil
	}, query, append(windowArgs(o), args...)...)
	if err != nil {
		return err
	}
	for _, k := range slices.SortedFunc(maps.Keys(hits), func(a, b hitKey) int {
		return cmp.Or(cmp.Compare(a.symptom, b.symptom), a.edgeGroup.compare(b.edgeGroup))
	}) {
		c.Hits = append(c.Hits, *hits[k])
	}
	if o.Weeks {
		c.Weeks = append(c.Weeks, sortedWeeks(weeks)...)
	}
	return nil
}

// scanWeek scans a row of weekly counts: symptom, job, edge, week, its
// Monday and the runs.
func scanWeek(rows *sql.Rows) (WeekGroup, error) {
	var g WeekGroup
	var monday string
	if err := rows.Scan(&g.Symptom, &g.Job, &g.Release, &g.FromRelease, &g.Upgrade, &g.RuleSet, &g.Week, &monday, &g.Runs); err != nil {
		return g, err
	}
	var err error
	g.Monday, err = time.Parse(time.DateOnly, monday)
	return g, err
}
