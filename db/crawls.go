package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Crawl is a row of crawls, the log of crawls: what one invocation did.
type Crawl struct {
	ID          int64
	StartedAt   time.Time // the time of StartCrawl when zero
	FinishedAt  time.Time // the time of FinishCrawl when zero
	Command     string
	Bucket      string
	Jobs        int
	NewRuns     int
	UpdatedRuns int
	Pending     int
	Errors      int
	ObjectsRead int
	BytesRead   int64
	Status      string // "running" after StartCrawl and "finished" after FinishCrawl when empty
}

// StartCrawl records the start of a crawl and returns its id. The counts are
// left NULL until FinishCrawl, so a crawl that died shows as unfinished.
func (d *DB) StartCrawl(ctx context.Context, c Crawl) (int64, error) {
	if c.StartedAt.IsZero() {
		c.StartedAt = time.Now()
	}
	if c.Status == "" {
		c.Status = "running"
	}
	var id int64
	err := d.db.QueryRowContext(ctx, `INSERT INTO crawls (started_at, command, bucket, status)
VALUES (?, ?, ?, ?) RETURNING id`, formatTime(c.StartedAt), c.Command, c.Bucket, c.Status).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("start crawl: %w", err)
	}
	return id, nil
}

// FinishCrawl records the end of crawl c.ID and its counts.
func (d *DB) FinishCrawl(ctx context.Context, c Crawl) error {
	if c.FinishedAt.IsZero() {
		c.FinishedAt = time.Now()
	}
	if c.Status == "" {
		c.Status = "finished"
	}
	res, err := d.db.ExecContext(ctx, `UPDATE crawls SET finished_at = ?, jobs = ?, new_runs = ?, updated_runs = ?,
	pending = ?, errors = ?, objects_read = ?, bytes_read = ?, status = ?
WHERE id = ?`, formatTime(c.FinishedAt), c.Jobs, c.NewRuns, c.UpdatedRuns, c.Pending, c.Errors,
		c.ObjectsRead, c.BytesRead, c.Status, c.ID)
	if err != nil {
		return fmt.Errorf("finish crawl %d: %w", c.ID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("finish crawl %d: %w", c.ID, err)
	}
	if n == 0 {
		return fmt.Errorf("finish crawl %d: no such crawl", c.ID)
	}
	return nil
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
