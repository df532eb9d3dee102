package prow

import (
	"errors"
	"fmt"
	"time"
)

// The times a run's artifacts give are checked before anything uses them:
// a start time in the year 58829 (milliseconds read as seconds) or in 2099
// would be stored, would move every window of the analysis that ends at
// the newest run, and could not be read back as a time.
var (
	// EarliestRun is a bound below which no run of these CI systems can
	// have started: they began in 2014.
	EarliestRun = time.Date(2014, 1, 1, 0, 0, 0, 0, time.UTC)
	// MaxClockSkew is how far past the reader's clock a run's time may
	// be: the machines that wrote it keep their own clocks.
	MaxClockSkew = 24 * time.Hour
)

// ErrImplausibleTime is matched (errors.Is) by the errors of ArtifactTime,
// CheckTime and CheckRunTimes.
var ErrImplausibleTime = errors.New("implausible time")

// ArtifactTime reads a timestamp of started.json or finished.json, which
// Prow writes in seconds since the Unix epoch. A value that cannot be a
// time in seconds (from 10^12 on, after the year 33000) but is a plausible
// time in milliseconds, as other writers give it, is read as milliseconds:
// 1794308181000 is 2026-11-10T10:56:21Z. Anything else outside EarliestRun
// to now + MaxClockSkew is an error that wraps ErrImplausibleTime.
func ArtifactTime(ts int64, now time.Time) (time.Time, error) {
	const maxSeconds = 1e12
	if ts >= maxSeconds {
		if t := time.UnixMilli(ts).UTC(); CheckTime(t, now) == nil {
			return t, nil
		}
		return time.Time{}, fmt.Errorf("%w: timestamp %d is neither seconds nor milliseconds of a time from %s to %s",
			ErrImplausibleTime, ts, EarliestRun.Format(time.DateOnly), now.Add(MaxClockSkew).UTC().Format(time.DateOnly))
	}
	t := time.Unix(ts, 0).UTC()
	if err := CheckTime(t, now); err != nil {
		return time.Time{}, fmt.Errorf("timestamp %d: %w", ts, err)
	}
	return t, nil
}

// CheckTime says whether t can be the time of a run read at now: from
// EarliestRun to now + MaxClockSkew.
func CheckTime(t, now time.Time) error {
	latest := now.Add(MaxClockSkew)
	switch {
	case t.Before(EarliestRun):
		return fmt.Errorf("%w: %s is before %s", ErrImplausibleTime, t.UTC().Format(time.RFC3339), EarliestRun.Format(time.DateOnly))
	case t.After(latest):
		return fmt.Errorf("%w: %s is after %s, a day past the clock", ErrImplausibleTime, t.UTC().Format(time.RFC3339), latest.UTC().Format(time.RFC3339))
	}
	return nil
}

// CheckRunTimes says whether a run can have started at start and finished
// at end: a run does not end before it starts. A zero end passes.
func CheckRunTimes(start, end time.Time) error {
	if !end.IsZero() && end.Before(start) {
		return fmt.Errorf("%w: finished at %s, before it started at %s", ErrImplausibleTime,
			end.UTC().Format(time.RFC3339), start.UTC().Format(time.RFC3339))
	}
	return nil
}
