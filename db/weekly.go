package db

import "time"

// WeeklyRate is a symptom's rate on an edge over one ISO week, or over
// several consecutive weeks merged because one alone held too few runs to
// show as a point of a trend (From and To are then their Mondays).
type WeeklyRate struct {
	Edge      string
	Week      string    // the ISO week, "2026-W47", or the first and last of merged weeks, "2026-W45..W47"
	WeekStart time.Time // its Monday, 00:00 UTC (the first week's when merged)
	WeekEnd   time.Time // the Monday after the last week
	Runs      int       // counted runs started in those weeks
	Hits      int       // of those, the runs showing the symptom
	Rate      float64   // Hits / Runs
}
