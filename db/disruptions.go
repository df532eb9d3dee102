package db

import (
	"context"
	"fmt"
	"math"
)

// RunDisruption is a row of run_disruptions: how long one backend of a run
// could not be reached, according to one file.
type RunDisruption struct {
	File        string  // the object the numbers come from
	Backend     string  // the entry's Name, e.g. kube-api-new-connections
	BackendName string  // e.g. kube-api; empty when unknown
	Connection  string  // new, reused or empty
	Seconds     float64 // NaN when the file gave no duration
	Source      string  // DisruptionFromFile or DisruptionFromEvents
}

// The sources of run_disruptions rows.
const (
	DisruptionFromFile   = "backend-disruption"
	DisruptionFromEvents = "events"
)

const insertDisruption = `INSERT INTO run_disruptions (job, build_id, file, backend, backend_name, connection, disrupted_s, source)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (job, build_id, file, backend) DO UPDATE SET
	disrupted_s = CASE
		WHEN disrupted_s IS NULL THEN excluded.disrupted_s
		WHEN excluded.disrupted_s IS NULL THEN disrupted_s
		ELSE disrupted_s + excluded.disrupted_s
	END`

// disruptions stores a run's disruption rows. Two entries of one file with
// one backend name (a file can repeat a Name under two keys) add up.
func (w *writer) disruptions(ctx context.Context, job string, build int64, ds []RunDisruption) error {
	for _, d := range ds {
		if d.File == "" || d.Backend == "" {
			return fmt.Errorf("disruption %q of %q: no file or no backend", d.Backend, d.File)
		}
		if !math.IsNaN(d.Seconds) && (d.Seconds < 0 || math.IsInf(d.Seconds, 0)) {
			return fmt.Errorf("disruption %s of %s: %v seconds", d.Backend, d.File, d.Seconds)
		}
		switch d.Source {
		case DisruptionFromFile, DisruptionFromEvents:
		default:
			return fmt.Errorf("disruption %s of %s: source %q", d.Backend, d.File, d.Source)
		}
		if _, err := w.disruption.ExecContext(ctx, job, build, d.File, d.Backend, nullString(d.BackendName),
			nullString(d.Connection), nullFloat(d.Seconds), d.Source); err != nil {
			return fmt.Errorf("disruption %s of %s: %w", d.Backend, d.File, err)
		}
	}
	return nil
}
