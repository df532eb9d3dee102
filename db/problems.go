package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// RunProblem is a stored run that could not be read whole, or whose
// artifacts were malformed or too large.
type RunProblem struct {
	Job           string
	BuildID       int64
	URL           string
	StartedAt     time.Time
	FetchStatus   string // complete (with parse or size problems), partial or error
	FetchError    string
	FetchAttempts int
	GivenUpAt     time.Time // zero unless the crawler gave up on it
	// Kind, Object and Message are those of the run's first recorded error
	// of its worst kind (read, then size, then parse); empty for a run
	// whose metadata could not be read at all.
	Kind, Object, Message string
	Errors                int // errors recorded on the run
}

// ProblemCounts counts the stored runs with problems.
type ProblemCounts struct {
	Unreadable int // fetch_status partial or error, still read again by every crawl
	GivenUp    int // not fully read, and no longer read again
	Malformed  int // read whole, with artifacts that were malformed or too large
}

// RunProblems returns the counts of runs with problems and up to limit of
// them (all with limit 0): those given up first, then those still read
// again, then those with malformed artifacts, newest first in each.
func (d *DB) RunProblems(ctx context.Context, limit int) (ProblemCounts, []RunProblem, error) {
	var c ProblemCounts
	err := d.db.QueryRowContext(ctx, `SELECT
	coalesce(sum(fetch_status <> 'complete' AND given_up_at IS NULL), 0),
	coalesce(sum(fetch_status <> 'complete' AND given_up_at IS NOT NULL), 0),
	coalesce(sum(fetch_status = 'complete' AND EXISTS (SELECT 1 FROM run_errors e WHERE e.job = r.job AND e.build_id = r.build_id)), 0)
FROM runs r`).Scan(&c.Unreadable, &c.GivenUp, &c.Malformed)
	if err != nil {
		return c, nil, fmt.Errorf("runs with problems: %w", err)
	}
	if limit <= 0 {
		limit = -1
	}
	out, err := queryList(ctx, d.db, func(rows *sql.Rows) (RunProblem, error) {
		var p RunProblem
		var started, fetchErr, givenUp, kind, object, message sql.NullString
		if err := rows.Scan(&p.Job, &p.BuildID, &p.URL, &started, &p.FetchStatus, &fetchErr,
			&p.FetchAttempts, &givenUp, &kind, &object, &message, &p.Errors); err != nil {
			return p, err
		}
		var err error
		if p.StartedAt, err = parseTime(started); err != nil {
			return p, fmt.Errorf("%s/%d: %w", p.Job, p.BuildID, err)
		}
		if p.GivenUpAt, err = parseTime(givenUp); err != nil {
			return p, fmt.Errorf("%s/%d: %w", p.Job, p.BuildID, err)
		}
		p.FetchError, p.Kind, p.Object, p.Message = fetchErr.String, kind.String, object.String, message.String
		return p, nil
	}, `SELECT r.job, r.build_id, r.url, r.started_at, r.fetch_status, r.fetch_error,
	r.fetch_attempts, r.given_up_at, e.kind, e.object, e.message,
	(SELECT count(*) FROM run_errors x WHERE x.job = r.job AND x.build_id = r.build_id)
FROM runs r LEFT JOIN run_errors e ON e.rowid = (
	SELECT x.rowid FROM run_errors x WHERE x.job = r.job AND x.build_id = r.build_id
	ORDER BY CASE x.kind WHEN 'read' THEN 0 WHEN 'size' THEN 1 ELSE 2 END, x.rowid LIMIT 1)
WHERE r.fetch_status <> 'complete' OR e.rowid IS NOT NULL
ORDER BY r.given_up_at IS NULL, r.fetch_status = 'complete', r.started_at DESC, r.job, r.build_id
LIMIT ?`, limit)
	if err != nil {
		return c, nil, fmt.Errorf("runs with problems: %w", err)
	}
	return c, out, nil
}
