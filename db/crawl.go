package db

import (
	"context"
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
