package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// StoredRun is a finished run as stored, with what reclassify and search
// need to find it in the cache and to count it.
type StoredRun struct {
	Job, JobType string
	BuildID      int64
	Bucket, Path string
	URL          string
	Result       prowcrawl.Result
	StartedAt    time.Time
	Edge         prowcrawl.Edge
	FetchStatus  string
	// UpgradeStarted is whether the run's upgrade began; nil when unknown,
	// which counts as begun.
	UpgradeStarted *bool
}

// RunFilter bounds StoredRuns by start time (zero for no bound).
type RunFilter struct {
	Since, Until time.Time
}

// StoredRuns lists the finished runs that were read (fetch_status complete
// or partial; a run that could not be read at all has nothing to read
// again), in job and build order.
func (d *DB) StoredRuns(ctx context.Context, f RunFilter) ([]StoredRun, error) {
	q := `SELECT r.job, coalesce(j.type, ''), r.build_id, r.bucket, r.path, r.url, r.result, r.started_at,
	coalesce(r.from_release, ''), coalesce(r.release, ''), coalesce(r.upgrade, ''), r.fetch_status, r.upgrade_started
FROM runs r LEFT JOIN jobs j ON j.name = r.job
WHERE r.result <> 'pending' AND r.fetch_status IN ('complete', 'partial')`
	var args []any
	if !f.Since.IsZero() {
		q += ` AND r.started_at >= ?`
		args = append(args, formatTime(f.Since))
	}
	if !f.Until.IsZero() {
		q += ` AND r.started_at < ?`
		args = append(args, formatTime(f.Until))
	}
	q += ` ORDER BY r.job, r.build_id`
	rows, err := d.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("stored runs: %w", err)
	}
	defer rows.Close()
	var out []StoredRun
	for rows.Next() {
		var r StoredRun
		var started sql.NullString
		var began sql.NullBool
		if err := rows.Scan(&r.Job, &r.JobType, &r.BuildID, &r.Bucket, &r.Path, &r.URL, &r.Result, &started,
			&r.Edge.From, &r.Edge.To, &r.Edge.Kind, &r.FetchStatus, &began); err != nil {
			return nil, fmt.Errorf("stored runs: %w", err)
		}
		if began.Valid {
			r.UpgradeStarted = &began.Bool
		}
		if r.StartedAt, err = parseTime(started); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("stored runs: %w", err)
	}
	return out, nil
}
