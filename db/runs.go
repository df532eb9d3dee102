package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// RunState is what the crawler needs to know of a stored run to decide
// whether to fetch it again.
type RunState struct {
	BuildID     int64
	Result      prowcrawl.Result
	FetchStatus prowcrawl.FetchStatus
	StartedAt   time.Time
	// FetchAttempts counts the crawls in a row that could not read it
	// whole; GivenUp says the crawler stopped trying.
	FetchAttempts int
	GivenUp       bool
}

// RunStates returns every stored run of job in bucket, by build id.
func (d *DB) RunStates(ctx context.Context, bucket, job string) (map[int64]RunState, error) {
	rows, err := d.db.QueryContext(ctx,
		`SELECT build_id, result, fetch_status, started_at, fetch_attempts, given_up_at IS NOT NULL FROM runs WHERE bucket = ? AND job = ?`, bucket, job)
	if err != nil {
		return nil, fmt.Errorf("run states of %s: %w", job, err)
	}
	defer rows.Close()
	states := make(map[int64]RunState)
	for rows.Next() {
		var s RunState
		var started sql.NullString
		if err := rows.Scan(&s.BuildID, &s.Result, &s.FetchStatus, &started, &s.FetchAttempts, &s.GivenUp); err != nil {
			return nil, fmt.Errorf("run states of %s: %w", job, err)
		}
		if s.StartedAt, err = parseTime(started); err != nil {
			return nil, fmt.Errorf("run states of %s/%d: %w", job, s.BuildID, err)
		}
		states[s.BuildID] = s
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("run states of %s: %w", job, err)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("run states of %s: %w", job, err)
	}
	return states, nil
}

// Revisit returns the stored runs of job in bucket that must be fetched
// again: those still pending and those not fetched completely, oldest first;
// those the crawler gave up on only with givenUp.
func (d *DB) Revisit(ctx context.Context, bucket, job string, givenUp bool) ([]prowcrawl.Run, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT `+runColumns+` FROM runs
WHERE bucket = ? AND job = ? AND (result = 'pending' OR fetch_status <> 'complete') AND (? OR given_up_at IS NULL)
ORDER BY build_id`, bucket, job, givenUp)
	if err != nil {
		return nil, fmt.Errorf("runs to revisit of %s: %w", job, err)
	}
	defer rows.Close()
	var runs []prowcrawl.Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("runs to revisit of %s: %w", job, err)
		}
		runs = append(runs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("runs to revisit of %s: %w", job, err)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("runs to revisit of %s: %w", job, err)
	}
	return runs, nil
}

// runColumns are the columns scanRun reads, in its order.
const runColumns = `job, build_id, bucket, path, url, started_at, finished_at, result,
	release, from_release, upgrade, from_version, to_version, upgrade_state, tag, from_tag, pull,
	fetch_status, fetch_error, objects_read, bytes_read, crawled_at, fetch_attempts, given_up_at`

func scanRun(rows *sql.Rows) (prowcrawl.Run, error) {
	var r prowcrawl.Run
	var started, finished, crawled, release, fromRelease, upgrade, fromVersion, toVersion,
		upgradeState, tag, fromTag, fetchError, givenUp sql.NullString
	var pull sql.NullInt64
	if err := rows.Scan(&r.Job, &r.BuildID, &r.Bucket, &r.Path, &r.URL, &started, &finished, &r.Result,
		&release, &fromRelease, &upgrade, &fromVersion, &toVersion, &upgradeState, &tag, &fromTag, &pull,
		&r.FetchStatus, &fetchError, &r.ObjectsRead, &r.BytesRead, &crawled, &r.FetchAttempts, &givenUp); err != nil {
		return prowcrawl.Run{}, err
	}
	r.Release, r.FromRelease, r.Upgrade = release.String, fromRelease.String, upgrade.String
	r.FromVersion, r.ToVersion, r.UpgradeState = fromVersion.String, toVersion.String, upgradeState.String
	r.Tag, r.FromTag, r.FetchError = tag.String, fromTag.String, fetchError.String
	r.Pull = int(pull.Int64)
	var err error
	if r.StartedAt, err = parseTime(started); err != nil {
		return prowcrawl.Run{}, fmt.Errorf("run %d: %w", r.BuildID, err)
	}
	if r.FinishedAt, err = parseTime(finished); err != nil {
		return prowcrawl.Run{}, fmt.Errorf("run %d: %w", r.BuildID, err)
	}
	if r.CrawledAt, err = parseTime(crawled); err != nil {
		return prowcrawl.Run{}, fmt.Errorf("run %d: %w", r.BuildID, err)
	}
	if r.GivenUpAt, err = parseTime(givenUp); err != nil {
		return prowcrawl.Run{}, fmt.Errorf("run %d: %w", r.BuildID, err)
	}
	return r, nil
}

// Cursor returns where the last crawl of job in bucket stopped, and false if
// no crawl of it has stored a cursor.
func (d *DB) Cursor(ctx context.Context, bucket, job string) (prowcrawl.Cursor, bool, error) {
	c := prowcrawl.Cursor{Bucket: bucket, Job: job}
	var started sql.NullString
	err := d.db.QueryRowContext(ctx, `SELECT build_id, started_at FROM crawl_cursors WHERE bucket = ? AND job = ?`,
		bucket, job).Scan(&c.BuildID, &started)
	if errors.Is(err, sql.ErrNoRows) {
		return prowcrawl.Cursor{}, false, nil
	}
	if err != nil {
		return prowcrawl.Cursor{}, false, fmt.Errorf("cursor of %s: %w", job, err)
	}
	if c.StartedAt, err = parseTime(started); err != nil {
		return prowcrawl.Cursor{}, false, fmt.Errorf("cursor of %s: %w", job, err)
	}
	return c, true, nil
}

// Jobs returns the names of the jobs with runs stored from bucket, sorted.
func (d *DB) Jobs(ctx context.Context, bucket string) ([]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT DISTINCT job FROM runs WHERE bucket = ? ORDER BY job`, bucket)
	if err != nil {
		return nil, fmt.Errorf("jobs of %s: %w", bucket, err)
	}
	defer rows.Close()
	var jobs []string
	for rows.Next() {
		var job string
		if err := rows.Scan(&job); err != nil {
			return nil, fmt.Errorf("jobs of %s: %w", bucket, err)
		}
		jobs = append(jobs, job)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("jobs of %s: %w", bucket, err)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("jobs of %s: %w", bucket, err)
	}
	return jobs, nil
}
