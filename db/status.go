package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// JobStatus counts one job's stored runs by result.
type JobStatus struct {
	Job                                              string
	Release, FromRelease, Upgrade, Platform, Network string
	Runs, Success, Failure, Aborted, Error, Pending  int
	FetchProblems                                    int // runs not fully read
	Flakes                                           int // flaky test results
	Newest                                           time.Time
}

// Status summarises what the database holds, job by job.
func (d *DB) Status(ctx context.Context) ([]JobStatus, error) {
	rows, err := d.db.QueryContext(ctx, `
		SELECT j.name, coalesce(j.release, ''), coalesce(j.from_release, ''), coalesce(j.upgrade, ''),
		       coalesce(j.platform, ''), coalesce(j.network, ''),
		       count(*),
		       sum(r.result = 'success'), sum(r.result = 'failure'), sum(r.result = 'aborted'),
		       sum(r.result = 'error'), sum(r.result = 'pending'),
		       sum(r.fetch_status <> 'complete'),
		       (SELECT count(*) FROM tests t WHERE t.job = j.name AND t.status = 'flake'),
		       max(r.started_at)
		FROM jobs j JOIN runs r ON r.job = j.name
		GROUP BY j.name ORDER BY j.name`)
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	defer rows.Close()
	var out []JobStatus
	for rows.Next() {
		var s JobStatus
		var newest sql.NullString
		if err := rows.Scan(&s.Job, &s.Release, &s.FromRelease, &s.Upgrade, &s.Platform, &s.Network,
			&s.Runs, &s.Success, &s.Failure, &s.Aborted, &s.Error, &s.Pending, &s.FetchProblems, &s.Flakes, &newest); err != nil {
			return nil, fmt.Errorf("status: %w", err)
		}
		if s.Newest, err = parseTime(newest); err != nil {
			return nil, fmt.Errorf("status of %s: %w", s.Job, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	return out, nil
}

// LastCrawl returns the newest entry of the crawl log.
func (d *DB) LastCrawl(ctx context.Context) (Crawl, bool, error) {
	var c Crawl
	var started, finished sql.NullString
	var jobs, newRuns, updated, pending, errs, objects, bytes sql.NullInt64
	var status sql.NullString
	err := d.db.QueryRowContext(ctx, `
		SELECT id, started_at, finished_at, command, bucket, jobs, new_runs, updated_runs, pending, errors,
		       objects_read, bytes_read, status
		FROM crawls ORDER BY id DESC LIMIT 1`).Scan(&c.ID, &started, &finished, &c.Command, &c.Bucket,
		&jobs, &newRuns, &updated, &pending, &errs, &objects, &bytes, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("last crawl: %w", err)
	}
	if c.StartedAt, err = parseTime(started); err != nil {
		return c, false, err
	}
	if c.FinishedAt, err = parseTime(finished); err != nil {
		return c, false, err
	}
	c.Jobs, c.NewRuns, c.UpdatedRuns = int(jobs.Int64), int(newRuns.Int64), int(updated.Int64)
	c.Pending, c.Errors, c.ObjectsRead, c.BytesRead = int(pending.Int64), int(errs.Int64), int(objects.Int64), bytes.Int64
	c.Status = status.String
	return c, true, nil
}
