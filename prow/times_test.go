package prow

import (
	"errors"
	"testing"
	"time"
)

func TestArtifactTime(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		ts   int64
		want string // RFC 3339, or "" for an implausible time
	}{
		{"seconds", 1794308181, "2026-11-10T10:56:21Z"},
		{"milliseconds", 1794308181000, "2026-11-10T10:56:21Z"},
		{"an hour ahead of the clock", now.Add(time.Hour).Unix(), "2026-12-01T10:00:00Z"},
		{"the first of 2014", EarliestRun.Unix(), "2014-01-01T00:00:00Z"},
		{"2099 in seconds", time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), ""},
		{"two days ahead", now.Add(48 * time.Hour).Unix(), ""},
		{"1970", 1, ""},
		{"2013", time.Date(2013, 12, 31, 0, 0, 0, 0, time.UTC).Unix(), ""},
		{"microseconds", 1794308181000000, ""},
		{"milliseconds of 2099", time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), ""},
		{"past year 9999", 253402300800, ""},
		{"max int64", 1<<63 - 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ArtifactTime(tt.ts, now)
			if tt.want == "" {
				if !errors.Is(err, ErrImplausibleTime) {
					t.Fatalf("ArtifactTime(%d) = %s, %v; want ErrImplausibleTime", tt.ts, got, err)
				}
				return
			}
			if err != nil || got.Format(time.RFC3339) != tt.want {
				t.Fatalf("ArtifactTime(%d) = %s, %v; want %s", tt.ts, got.Format(time.RFC3339), err, tt.want)
			}
		})
	}
}

func TestCheckRunTimes(t *testing.T) {
	start := time.Date(2026, 11, 11, 10, 0, 0, 0, time.UTC)
	if err := CheckRunTimes(start, start.Add(time.Hour)); err != nil {
		t.Error(err)
	}
	if err := CheckRunTimes(start, start); err != nil {
		t.Error(err)
	}
	if err := CheckRunTimes(start, time.Time{}); err != nil {
		t.Error(err)
	}
	if err := CheckRunTimes(start, start.Add(-time.Second)); !errors.Is(err, ErrImplausibleTime) {
		t.Errorf("an end before the start: %v", err)
	}
}
