package db

import (
	"database/sql"
	"time"
)

// timeLayout is how timestamps are stored: RFC 3339 in UTC to the second,
// which sqlite3's date and time functions read and which sorts as text.
const timeLayout = "2006-01-02T15:04:05Z"

// formatTime is t as stored.
func formatTime(t time.Time) string {
	return t.UTC().Format(timeLayout)
}

// nullTime stores the zero time as NULL, and so a time that could not be
// read back: one outside the years 1 to 9999 has no RFC 3339 form. The
// crawler checks the times it reads from outside (see prow.ArtifactTime);
// this is the last guard.
func nullTime(t time.Time) any {
	if t.IsZero() || !storable(t) {
		return nil
	}
	return formatTime(t)
}

// storable says whether t has an RFC 3339 form to the second.
func storable(t time.Time) bool {
	y := t.UTC().Year()
	return y >= 1 && y <= 9999
}

// nullString stores the empty string as NULL.
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullInt stores zero as NULL, for columns where zero means unknown.
func nullInt[T int | int64](n T) any {
	if n == 0 {
		return nil
	}
	return int64(n)
}

// parseTime reads a stored timestamp; NULL is the zero time, and so is a
// value that is not a time (an older version stored some, a hand edit can
// store any): one unreadable value must not stop every crawl, report or
// export that reads the row. Migration 0006 set those it found to NULL.
func parseTime(s sql.NullString) (time.Time, error) {
	if !s.Valid || s.String == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s.String)
	if err != nil {
		return time.Time{}, nil
	}
	return t.UTC(), nil
}

// The times prowcrawl stores are those of CI runs, which began in 2014;
// they reach at most a day past the clock (the machines that wrote them
// keep their own). The crawler checks the same bounds (prow.EarliestRun,
// prow.MaxClockSkew) before it stores a time.
const (
	earliestTime = "2014-01-01T00:00:00Z"
	clockSkew    = "+1 day"
)

// plausibleSQL is the SQL condition that column col holds NULL or a time
// as prowcrawl stores it (RFC 3339 in UTC to the second, a real date) from
// earliestTime to a day past the clock.
func plausibleSQL(col string) string {
	return `(` + col + ` IS NULL OR (typeof(` + col + `) = 'text' AND ` + col +
		` GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z' AND strftime('%Y-%m-%dT%H:%M:%SZ', ` + col + `) = ` + col +
		` AND ` + col + ` >= '` + earliestTime + `' AND ` + col + ` <= strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '` + clockSkew + `')))`
}

// nullBool stores nil as NULL, true as 1 and false as 0.
func nullBool(b *bool) any {
	switch {
	case b == nil:
		return nil
	case *b:
		return int64(1)
	}
	return int64(0)
}
