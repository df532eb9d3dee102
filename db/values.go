package db

import (
	"database/sql"
	"fmt"
	"time"
)

// timeLayout is how timestamps are stored: RFC 3339 in UTC to the second,
// which sqlite3's date and time functions read and which sorts as text.
const timeLayout = "2006-01-02T15:04:05Z"

// formatTime is t as stored.
func formatTime(t time.Time) string {
	return t.UTC().Format(timeLayout)
}

// nullTime stores the zero time as NULL.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return formatTime(t)
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

// parseTime reads a stored timestamp; NULL is the zero time.
func parseTime(s sql.NullString) (time.Time, error) {
	if !s.Valid || s.String == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, s.String)
	if err != nil {
		return time.Time{}, fmt.Errorf("parse time %q: %w", s.String, err)
	}
	return t.UTC(), nil
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
