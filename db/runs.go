package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"strings"
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
	runs, err := queryList(ctx, d.db, scanRun, `SELECT `+runColumns+` FROM runs
WHERE bucket = ? AND job = ? AND (result = 'pending' OR fetch_status <> 'complete') AND (? OR given_up_at IS NULL)
ORDER BY build_id`, bucket, job, givenUp)
	if err != nil {
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
	jobs, err := queryList(ctx, d.db, scanString, `SELECT DISTINCT job FROM runs WHERE bucket = ? ORDER BY job`, bucket)
	if err != nil {
		return nil, fmt.Errorf("jobs of %s: %w", bucket, err)
	}
	return jobs, nil
}

// JobStatus counts one job's stored runs by result.
type JobStatus struct {
	Job                                              string
	Release, FromRelease, Upgrade, Platform, Network string
	Runs, Success, Failure, Aborted, Error, Pending  int // Pending: still running, read whole so far
	Unread                                           int // runs that could not be read at all (fetch_status error): no result known
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
		       sum(r.result = 'error'), sum(r.result = 'pending' AND r.fetch_status IS NOT 'error'),
		       sum(r.fetch_status = 'error'), sum(r.fetch_status <> 'complete'),
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
			&s.Runs, &s.Success, &s.Failure, &s.Aborted, &s.Error, &s.Pending, &s.Unread, &s.FetchProblems, &s.Flakes, &newest); err != nil {
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

// JobNames returns the names of the jobs that have runs stored, sorted: what
// a report's job pattern is matched against.
func (d *DB) JobNames(ctx context.Context) ([]string, error) {
	out, err := queryList(ctx, d.db, scanString, `SELECT j.name FROM jobs j
WHERE EXISTS (SELECT 1 FROM runs r INDEXED BY runs_key WHERE r.job = j.name)
ORDER BY j.name`)
	if err != nil {
		return nil, fmt.Errorf("job names: %w", err)
	}
	return out, nil
}

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
	// Overall is the run's overall result (empty: not derived).
	Overall prowcrawl.OverallResult
}

// Facts are what the run's population depends on, but its rules.
func (r StoredRun) Facts() prowcrawl.RunFacts {
	return prowcrawl.RunFacts{Job: r.Job, Result: r.Result, UpgradeStarted: r.UpgradeStarted, Overall: r.Overall}
}

// RunTally counts the stored runs started in a filter's bounds by the part
// of their population no rule changes (prowcrawl.RunPopulation) and by
// their overall result ("" for a run stored before overall results were).
type RunTally struct {
	Populations map[prowcrawl.Population]int
	Overall     map[prowcrawl.OverallResult]int
}

// TallyRuns is RunTally of the runs started in f's bounds, of the jobs
// keep keeps (nil: every job). The database groups them by the facts a
// population depends on; the domain decides each group's population, so
// that no SQL restates the definition.
func (d *DB) TallyRuns(ctx context.Context, f RunFilter, keep func(job string) bool) (RunTally, error) {
	q := `SELECT r.job, r.result, coalesce(r.overall_result, ''), r.upgrade_started, count(*)
FROM runs r WHERE 1`
	var args []any
	if !f.Since.IsZero() {
		q += ` AND r.started_at >= ?`
		args = append(args, formatTime(f.Since))
	}
	if !f.Until.IsZero() {
		q += ` AND r.started_at < ?`
		args = append(args, formatTime(f.Until))
	}
	q += ` GROUP BY r.job, r.result, coalesce(r.overall_result, ''), r.upgrade_started`
	t := RunTally{Populations: map[prowcrawl.Population]int{}, Overall: map[prowcrawl.OverallResult]int{}}
	err := queryEach(ctx, d.db, func(rows *sql.Rows) error {
		var facts prowcrawl.RunFacts
		var began sql.NullBool
		var n int
		if err := rows.Scan(&facts.Job, &facts.Result, &facts.Overall, &began, &n); err != nil {
			return err
		}
		if keep != nil && !keep(facts.Job) {
			return nil
		}
		if began.Valid {
			facts.UpgradeStarted = &began.Bool
		}
		t.Populations[prowcrawl.RunPopulation(facts)] += n
		t.Overall[facts.Overall] += n
		return nil
	}, q, args...)
	if err != nil {
		return RunTally{}, fmt.Errorf("tally runs: %w", err)
	}
	return t, nil
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
	coalesce(r.from_release, ''), coalesce(r.release, ''), coalesce(r.upgrade, ''), r.fetch_status, r.upgrade_started,
	coalesce(r.overall_result, '')
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
			&r.Edge.From, &r.Edge.To, &r.Edge.Kind, &r.FetchStatus, &began, &r.Overall); err != nil {
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

// FailureQuery bounds the runs whose failures are read: finished runs
// (success, failure, error) started in [Since, Until) (a zero time is no
// bound).
type FailureQuery struct {
	Since, Until time.Time
	// Active, when not nil, are the symptoms that explain a failed run;
	// nil means the symptoms the database marks active.
	Active []string
}

// where is the condition on runs r of q, and its arguments.
func (q FailureQuery) where() (string, []any) {
	cond := []string{"r.result IN ('success', 'failure', 'error')"}
	var args []any
	if !q.Since.IsZero() {
		cond = append(cond, "r.started_at >= ?")
		args = append(args, q.Since.UTC().Format(time.RFC3339))
	}
	if !q.Until.IsZero() {
		cond = append(cond, "r.started_at < ?")
		args = append(args, q.Until.UTC().Format(time.RFC3339))
	}
	return strings.Join(cond, " AND "), args
}

// FailureRun is a finished run, as the proposal of new symptoms needs it.
type FailureRun struct {
	Job     string
	BuildID int64
	Path    string // the run's object path in its bucket
	Bucket  string
	Edge    string // the run's edge key, "" when it has none
	Result  prowcrawl.Result
	// Explained: it shows a symptom of an active rule.
	Explained bool
}

// FailureRuns lists the finished runs of q, by job and build id, each
// with whether an active symptom explains it.
func (d *DB) FailureRuns(ctx context.Context, q FailureQuery) ([]FailureRun, error) {
	where, args := q.where()
	explained := `EXISTS (SELECT 1 FROM run_symptoms rs JOIN symptoms s ON s.id = rs.symptom_id
		WHERE rs.job = r.job AND rs.build_id = r.build_id AND s.active = 1)`
	if q.Active != nil {
		marks := strings.TrimSuffix(strings.Repeat("?, ", len(q.Active)), ", ")
		if marks == "" {
			explained = "0"
		} else {
			explained = `EXISTS (SELECT 1 FROM run_symptoms rs
		WHERE rs.job = r.job AND rs.build_id = r.build_id AND rs.symptom_id IN (` + marks + `))`
		}
		act := make([]any, len(q.Active))
		for i, id := range q.Active {
			act[i] = id
		}
		args = append(act, args...)
	}
	out, err := queryList(ctx, d.db, func(rows *sql.Rows) (FailureRun, error) {
		var r FailureRun
		err := rows.Scan(&r.Job, &r.BuildID, &r.Bucket, &r.Path, &r.Edge, &r.Result, &r.Explained)
		return r, err
	}, `SELECT r.job, r.build_id, r.bucket, r.path, coalesce(r.edge, ''), r.result, `+explained+`
FROM runs r WHERE `+where+` ORDER BY r.job, r.build_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("failure runs: %w", err)
	}
	return out, nil
}

// FailedTest is the failure of a test in a run: a test that failed, or
// failed and then passed (a flake).
type FailedTest struct {
	Job     string
	BuildID int64
	Name    string
	Message string
}

// FailedTests streams the failed and flaked tests of the runs of q, by job
// and build id, without holding them: the caller reads one at a time. An
// error ends the sequence.
func (d *DB) FailedTests(ctx context.Context, q FailureQuery) iter.Seq2[FailedTest, error] {
	return func(yield func(FailedTest, error) bool) {
		where, args := q.where()
		rows, err := d.db.QueryContext(ctx, `SELECT t.job, t.build_id, t.name, coalesce(t.message, '')
FROM runs r JOIN tests t ON t.job = r.job AND t.build_id = r.build_id
WHERE t.status IN ('fail', 'flake') AND `+where+`
ORDER BY t.job, t.build_id`, args...)
		if err != nil {
			yield(FailedTest{}, fmt.Errorf("failed tests: %w", err))
			return
		}
		defer rows.Close()
		for rows.Next() {
			var t FailedTest
			var msg sql.NullString
			if err := rows.Scan(&t.Job, &t.BuildID, &t.Name, &msg); err != nil {
				yield(FailedTest{}, fmt.Errorf("failed tests: %w", err))
				return
			}
			t.Message = msg.String
			if !yield(t, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			yield(FailedTest{}, fmt.Errorf("failed tests: %w", err))
		}
	}
}
