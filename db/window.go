package db

import (
	"encoding/json"
	"time"
)

// A window's rows are counted from indexes in window order (migration
// 0017): run_symptoms and run_disruptions carry copies of the columns of
// their run that a window and a rate read (its start, result, whether it
// is in the rates, and its edge), kept equal to the run's by triggers, so
// that the rows of a window are one range of an index and no run is
// looked up. runCols names those columns wherever a query reads them.

// runCopies are the columns of run_symptoms and run_disruptions that copy
// their run's, and runCopied the run's columns they copy, of runs r.
const (
	runCopies = `run_started_at, run_result, run_in_rates, run_release, run_from_release, run_upgrade`
	runCopied = `r.started_at, r.result, ` + inRatesOf + `, r.release, r.from_release, r.upgrade`
)

// inRatesOf is the value of run_in_rates for a run r (migration 0023): 0
// when it is counted apart from the rates (an infrastructure failure, or
// its upgrade never began), else upgrade_started (NULL, unknown, counts as
// begun).
const inRatesOf = `CASE WHEN r.overall_result IN ('N', 'n') THEN 0 ELSE r.upgrade_started END`

// runCols name a run's columns that the counts read: those of runs, or the
// copies of them in run_symptoms and run_disruptions.
type runCols struct {
	job, startedAt, result, release, fromRelease, upgrade string
	// inRates is the condition that the run is in the rates (startedRun).
	inRates string
}

// onRuns are the columns of runs, alias t.
func onRuns(t string) runCols {
	return runCols{job: t + ".job", startedAt: t + ".started_at", result: t + ".result", inRates: t + ".upgrade_started IS NOT 0 AND coalesce(" + t + ".overall_result, '') NOT IN ('N', 'n')",
		release: t + ".release", fromRelease: t + ".from_release", upgrade: t + ".upgrade"}
}

// onCopies are the copies of a run's columns in run_symptoms or
// run_disruptions, alias t.
func onCopies(t string) runCols {
	return runCols{job: t + ".job", startedAt: t + ".run_started_at", result: t + ".run_result", inRates: t + ".run_in_rates IS NOT 0",
		release: t + ".run_release", fromRelease: t + ".run_from_release", upgrade: t + ".run_upgrade"}
}

// counted is countedRun on c.
func (c runCols) counted() string { return c.result + ` IN ('success', 'failure', 'error')` }

// started is startedRun on c.
func (c runCols) started() string { return c.inRates }

// edge are the run's edge columns, NULL as ”.
func (c runCols) edge() string {
	return `coalesce(` + c.release + `, ''), coalesce(` + c.fromRelease + `, ''), coalesce(` + c.upgrade + `, '')`
}

// in is the condition that the run started in the window (From excluded,
// To included) whose ends are the parameters from and to ("?1", "?2").
func (c runCols) in(from, to string) string {
	return c.startedAt + ` > ` + from + ` AND ` + c.startedAt + ` <= ` + to
}

// timed reports whether b bounds the runs' start: a window, which the
// indexes in window order serve.
func (b Bounds) timed() bool {
	return !b.Since.IsZero() || !b.Until.IsZero()
}

// day is the day of the run's start, as the indexes in window order
// (runs_days, run_symptoms_days: migration 0019) begin with it.
func (c runCols) day() string { return `substr(` + c.startedAt + `, 1, 10)` }

// whereDays is whereOn with the days of b's times, so that a window is
// read as the range of its days of an index that begins with the day.
func (b Bounds) whereDays(c runCols) (string, []any, error) {
	var w where
	if !b.Since.IsZero() {
		w.add(c.day()+` >= ?`, b.Since.UTC().Format(time.DateOnly))
	}
	if !b.Until.IsZero() {
		w.add(c.day()+` <= ?`, b.Until.UTC().Format(time.DateOnly))
	}
	cond, args, err := b.whereOn(c)
	return w.sql() + cond, append(w.args, args...), err
}

// whereOn is the SQL condition of b on the run columns c, with its
// arguments.
func (b Bounds) whereOn(c runCols) (string, []any, error) {
	var w where
	if !b.Since.IsZero() {
		w.add(c.startedAt+` >= ?`, formatTime(b.Since))
	}
	if !b.Until.IsZero() {
		w.add(c.startedAt+` < ?`, formatTime(b.Until))
	}
	if b.Jobs != nil {
		jobs, err := json.Marshal(b.Jobs)
		if err != nil {
			return "", nil, err
		}
		w.add(c.job+` IN (SELECT value FROM json_each(?))`, string(jobs))
	}
	return w.sql(), w.args, nil
}

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
