package prow

import (
	"math"
	"time"
)

// Prow build ids are sorted numerically, never as strings: GCS lists
// "100/" before "99/". Old jobs count up from 1; since 2018 Prow has used
// Twitter-style snowflake ids, 19 digits long, whose bits above the lowest
// 22 are milliseconds since snowflakeEpoch.
const (
	snowflakeEpochMillis = 1288834974657 // 2010-11-04T01:42:54.657Z
	snowflakeShift       = 22
	// minSnowflake is the smallest 19-digit id. Sequential ids never get
	// near it, so ids at or above it are snowflakes.
	minSnowflake = int64(1e18)
)

// ParseBuildID parses a build id: 1 to 19 decimal digits with no sign that
// fit in an int64. Leading zeros are accepted.
func ParseBuildID(s string) (int64, bool) {
	if len(s) == 0 || len(s) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0') // 19 digits cannot overflow a uint64
	}
	if n > math.MaxInt64 {
		return 0, false
	}
	return int64(n), true
}

// BuildTime returns the time encoded in a snowflake build id, in UTC, and
// false for ids below 1e18 (sequential ids, which encode no time).
func BuildTime(id int64) (time.Time, bool) {
	if id < minSnowflake {
		return time.Time{}, false
	}
	return time.UnixMilli(id>>snowflakeShift + snowflakeEpochMillis).UTC(), true
}

// MinBuildIDAt returns the smallest snowflake id Prow could have issued at t,
// the inverse of BuildTime: every run started at or after t has an id at
// least this large, which lets a crawl skip older runs by id alone. Times
// before the snowflake epoch give 0; times too late for an int64 give
// math.MaxInt64.
func MinBuildIDAt(t time.Time) int64 {
	ms := t.UnixMilli() - snowflakeEpochMillis
	switch {
	case ms <= 0:
		return 0
	case ms > math.MaxInt64>>snowflakeShift:
		return math.MaxInt64
	}
	return ms << snowflakeShift
}
