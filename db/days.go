package db

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

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
	rows, err := tx.QueryContext(ctx, `SELECT name, coalesce(type, ''), coalesce(platform, ''), coalesce(network, ''), coalesce(arch, ''), coalesce(topology, '') FROM jobs`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var j prowcrawl.Job
		if err := rows.Scan(&j.Name, &j.Type, &j.Platform, &j.Network, &j.Arch, &j.Topology); err != nil {
			rows.Close()
			return err
		}
		jobs[j.Name] = j
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}

	r := onRuns("r")
	cond, args, err := o.Bounds.whereDays(r)
	if err != nil {
		return err
	}
	started, left := startedRun, `r.upgrade_started = 0`
	sample, basis := r.in("?1", "?2"), r.in("?3", "?4")
	rows, err = tx.QueryContext(ctx, `SELECT r.job, `+r.edge()+`, coalesce(r.rule_set, 0), `+r.day()+`,
	count(CASE WHEN `+started+` THEN 1 END),
	count(CASE WHEN `+started+` AND r.result <> 'success' THEN 1 END),
	count(CASE WHEN `+started+` AND `+sample+` THEN 1 END),
	count(CASE WHEN `+started+` AND `+basis+` THEN 1 END),
	count(CASE WHEN `+left+` THEN 1 END),
	count(CASE WHEN `+left+` AND `+sample+` THEN 1 END),
	count(CASE WHEN `+left+` AND `+basis+` THEN 1 END),
	min(CASE WHEN `+started+` THEN r.started_at END),
	max(CASE WHEN `+started+` THEN r.started_at END)
FROM runs r INDEXED BY runs_days
WHERE `+countedRun+cond+`
GROUP BY `+r.day()+`, r.job, r.release, r.from_release, r.upgrade, r.rule_set`, append(windowArgs(o), args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	groups := map[edgeGroup]*RunGroup{}
	weeks := map[weekKey]*WeekGroup{}
	for rows.Next() {
		var g edgeGroup
		var day, first, last sql.NullString
		var n RunGroup
		if err := rows.Scan(&g.job, &g.release, &g.fromRelease, &g.upgrade, &g.ruleSet, &day, &n.Runs, &n.Failed, &n.Sample, &n.Basis,
			&n.LeftOut, &n.SampleLeftOut, &n.BasisLeftOut, &first, &last); err != nil {
			return err
		}
		j, ok := jobs[g.job]
		if !ok {
			continue // as a join with jobs leaves it out
		}
		if n.First, err = parseTime(first); err != nil {
			return err
		}
		if n.Last, err = parseTime(last); err != nil {
			return err
		}
		t := groups[g]
		if t == nil {
			t = &RunGroup{Job: g.job, Release: g.release, FromRelease: g.fromRelease, Upgrade: g.upgrade, RuleSet: g.ruleSet,
				Platform: j.Platform, Network: j.Network, Arch: j.Arch, Topology: j.Topology, Type: j.Type}
			groups[g] = t
		}
		t.Runs += n.Runs
		t.Failed += n.Failed
		t.Sample += n.Sample
		t.Basis += n.Basis
		t.LeftOut += n.LeftOut
		t.SampleLeftOut += n.SampleLeftOut
		t.BasisLeftOut += n.BasisLeftOut
		if !n.First.IsZero() && (t.First.IsZero() || n.First.Before(t.First)) {
			t.First = n.First
		}
		if n.Last.After(t.Last) {
			t.Last = n.Last
		}
		if o.Weeks {
			addWeek(weeks, "", g, day, n.Runs)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, g := range slices.SortedFunc(maps.Keys(groups), edgeGroup.compare) {
		c.Runs = append(c.Runs, *groups[g])
	}
	if o.Weeks {
		c.Weeks = append(c.Weeks, sortedWeeks(weeks)...)
	}
	return rows.Close()
}

// symptomDays reads c.Hits (and with o.Weeks the symptoms' weeks) for the
// runs o.Bounds bounds, by day from run_symptoms_days.
func (c *AnalysisCounts) symptomDays(ctx context.Context, tx *sql.Tx, o CountOptions) error {
	rs := onCopies("rs")
	cond, args, err := o.Bounds.whereDays(rs)
	if err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, `SELECT s.id, rs.job, `+rs.edge()+`, `+rs.day()+`,
	count(*),
	count(CASE WHEN `+rs.result+` <> 'success' THEN 1 END),
	count(CASE WHEN `+rs.in("?1", "?2")+` THEN 1 END),
	count(CASE WHEN `+rs.in("?3", "?4")+` THEN 1 END)
FROM symptoms s
CROSS JOIN run_symptoms rs INDEXED BY run_symptoms_days ON rs.symptom_id = s.id
WHERE s.active = 1 AND `+rs.counted()+` AND `+rs.started()+` AND rs.rule_hash IS s.rule_hash`+cond+`
GROUP BY s.id, `+rs.day()+`, rs.job, `+rs.release+`, `+rs.fromRelease+`, `+rs.upgrade, append(windowArgs(o), args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	type hitKey struct {
		symptom string
		edgeGroup
	}
	hits := map[hitKey]*SymptomGroup{}
	weeks := map[weekKey]*WeekGroup{}
	for rows.Next() {
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
	}
	if err := rows.Err(); err != nil {
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
	return rows.Close()
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
	rows, err := d.db.QueryContext(ctx, `SELECT t.backend, `+onCopies("t").edge()+`, t.disrupted_s, count(*)
FROM run_symptoms rs INDEXED BY run_symptoms_days
CROSS JOIN run_disruption_totals t ON t.job = rs.job AND t.build_id = rs.build_id
WHERE rs.symptom_id = ? AND `+c.counted()+` AND `+c.started()+`
	AND rs.job NOT IN (SELECT name FROM jobs WHERE type = 'presubmit')`+cond+`
GROUP BY 1, 2, 3, 4, 5`, append([]any{symptom}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("disruption of %s: %w", symptom, err)
	}
	defer rows.Close()
	var out []DisruptionCell
	for rows.Next() {
		var t DisruptionCell
		var secs sql.NullFloat64
		if err := rows.Scan(&t.Backend, &t.Release, &t.FromRelease, &t.Upgrade, &secs, &t.Runs); err != nil {
			return nil, fmt.Errorf("disruption of %s: %w", symptom, err)
		}
		t.Seconds = floatOrNaN(secs)
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("disruption of %s: %w", symptom, err)
	}
	return out, rows.Close()
}
