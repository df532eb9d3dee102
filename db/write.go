package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Job is a row of jobs: a job name and what the name says about it.
type Job struct {
	Name, Type, Release, FromRelease, Upgrade, Platform, Network, Arch, Topology string
}

// Run is a row of runs. Empty optional strings, a zero Pull and zero times are
// stored as NULL.
type Run struct {
	Job          string
	BuildID      int64
	Bucket       string
	Path         string // the run's directory in the bucket
	URL          string // the Prow view link
	StartedAt    time.Time
	FinishedAt   time.Time
	Result       string // success, failure, aborted, error or pending
	Release      string
	FromRelease  string
	Upgrade      string
	FromVersion  string
	ToVersion    string
	UpgradeState string // Completed, Partial or empty
	// UpgradeStarted is whether the run's upgrade began (prow.UpgradeBegan);
	// nil when unknown, which counts as started.
	UpgradeStarted *bool
	Tag            string
	FromTag        string
	Pull           int
	FetchStatus    string // complete, partial or error
	FetchError     string
	// FetchAttempts counts the crawls in a row that could not read the run
	// whole (0 when it is complete); GivenUpAt, unless zero, is when the
	// crawler stopped reading it again.
	FetchAttempts int
	GivenUpAt     time.Time
	ObjectsRead   int
	BytesRead     int64
	CrawledAt     time.Time // the time of the Write when zero
}

// Test is a row of tests: one test case of a run.
type Test struct {
	Suite, Name string
	Status      string // pass, fail, flake or skip
	DurationS   float64
	Message     string
}

// RunError is a row of run_errors: an artifact of a run that could not be
// used.
type RunError struct {
	Object  string
	Kind    string // read, parse or size
	Message string
}

// Record is everything a crawl learned about one run. Writing it replaces
// what the database held about that run.
type Record struct {
	Job      Job
	Run      Run // Run.Job may be left empty: it is Job.Name
	Tests    []Test
	Errors   []RunError
	Symptoms []RunSymptom
	// Disruptions are the run's rows of run_disruptions.
	Disruptions []RunDisruption
}

// RunSymptom is a row of run_symptoms: a symptom a run shows, with its first
// evidence. The symptom must be in the symptoms table (see SyncSymptoms).
type RunSymptom struct {
	SymptomID string
	Hits      int
	File      string
	Line      int
	Excerpt   string
	At        time.Time // the time of the first evidence, zero when unknown
	LastAt    time.Time // the time of the last evidence, zero when unknown
	RuleHash  string    // the version of the rule that found it (classify.Rule.Hash)
}

// Cursor is where the crawl of a job in a bucket stopped: the highest build id
// up to which every listed run was stored.
type Cursor struct {
	Bucket, Job string
	BuildID     int64
	StartedAt   time.Time
}

const (
	upsertJob = `INSERT INTO jobs (name, type, release, from_release, upgrade, platform, network, arch, topology)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (name) DO UPDATE SET
	type = excluded.type,
	release = excluded.release,
	from_release = excluded.from_release,
	upgrade = excluded.upgrade,
	platform = excluded.platform,
	network = excluded.network,
	arch = excluded.arch,
	topology = excluded.topology`

	deleteTests    = `DELETE FROM tests WHERE job = ? AND build_id = ?`
	deleteSymptoms = `DELETE FROM run_symptoms WHERE job = ? AND build_id = ?`
	deleteErrors   = `DELETE FROM run_errors WHERE job = ? AND build_id = ?`
	deleteDisrupts = `DELETE FROM run_disruptions WHERE job = ? AND build_id = ?`

	// An upsert, not INSERT OR REPLACE: REPLACE deletes the old row first,
	// which would cascade to rows of the run that are not ours to drop.
	upsertRun = `INSERT INTO runs (job, build_id, bucket, path, url, started_at, finished_at, result,
	release, from_release, upgrade, from_version, to_version, upgrade_state, tag, from_tag, pull,
	fetch_status, fetch_error, objects_read, bytes_read, crawled_at, fetch_attempts, given_up_at, upgrade_started, edge, variant)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (job, build_id) DO UPDATE SET
	bucket = excluded.bucket,
	path = excluded.path,
	url = excluded.url,
	started_at = excluded.started_at,
	finished_at = excluded.finished_at,
	result = excluded.result,
	release = excluded.release,
	from_release = excluded.from_release,
	upgrade = excluded.upgrade,
	from_version = excluded.from_version,
	to_version = excluded.to_version,
	upgrade_state = excluded.upgrade_state,
	tag = excluded.tag,
	from_tag = excluded.from_tag,
	pull = excluded.pull,
	fetch_status = excluded.fetch_status,
	fetch_error = excluded.fetch_error,
	objects_read = excluded.objects_read,
	bytes_read = excluded.bytes_read,
	crawled_at = excluded.crawled_at,
	fetch_attempts = excluded.fetch_attempts,
	given_up_at = excluded.given_up_at,
	upgrade_started = excluded.upgrade_started,
	edge = excluded.edge,
	variant = excluded.variant`

	// A test listed twice in a run (two JUnit files, a retry) is merged as
	// the design defines it: failed and passed is a flake; a skip yields to
	// any other outcome. The first failure message is kept.
	insertTest = `INSERT INTO tests (job, build_id, suite, name, status, duration_s, message)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (job, build_id, suite, name) DO UPDATE SET
	status = CASE
		WHEN status = excluded.status THEN status
		WHEN status = 'skip' THEN excluded.status
		WHEN excluded.status = 'skip' THEN status
		ELSE 'flake'
	END,
	duration_s = max(coalesce(duration_s, excluded.duration_s), coalesce(excluded.duration_s, duration_s)),
	message = coalesce(message, excluded.message)`

	// With the copies of the run's columns (migration 0017) that the
	// counts of a window read: written here, the trigger that would
	// otherwise fill them has nothing to do.
	insertSymptom = `INSERT INTO run_symptoms (job, build_id, symptom_id, hits, file, line, excerpt, at, last_at, rule_hash,
	` + runCopies + `)
SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ` + runCopied + `
FROM (SELECT 1) LEFT JOIN runs r ON r.job = ?1 AND r.build_id = ?2`

	insertError = `INSERT INTO run_errors (job, build_id, object, kind, message) VALUES (?, ?, ?, ?, ?)`

	// A cursor never moves backwards: a crawl of an older range (a backfill)
	// must not make the next incremental crawl start over.
	upsertCursor = `INSERT INTO crawl_cursors (bucket, job, build_id, started_at, updated_at)
VALUES (?, ?, ?, ?, ?)
ON CONFLICT (bucket, job) DO UPDATE SET
	started_at = CASE
		WHEN build_id >= 1000000000000000000 AND (build_id >> 22) + 1288834974657 > unixepoch('now', '+1 day') * 1000 THEN excluded.started_at
		WHEN excluded.build_id > build_id THEN coalesce(excluded.started_at, started_at)
		WHEN excluded.build_id = build_id THEN coalesce(excluded.started_at, started_at)
		ELSE started_at
	END,
	build_id = CASE
		-- A snowflake id dated over a day ahead was never issued: such a
		-- cursor (from an older version) gives way to the crawl's.
		WHEN build_id >= 1000000000000000000 AND (build_id >> 22) + 1288834974657 > unixepoch('now', '+1 day') * 1000 THEN excluded.build_id
		ELSE max(build_id, excluded.build_id)
	END,
	updated_at = excluded.updated_at`
)

// Write stores recs and moves cursors in one transaction: either all of it is
// stored or none. Each record replaces the run's tests, errors and symptoms
// and updates its run and job rows, so writing a record twice leaves the same
// rows. A cursor never moves backwards.
func (d *DB) Write(ctx context.Context, recs []Record, cursors []Cursor) (err error) {
	if len(recs) == 0 && len(cursors) == 0 {
		return nil
	}
	now := time.Now()
	if err := d.prepare(ctx); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, rollback(tx))
		}
	}()
	w := prepareWriter(ctx, d, tx)
	defer func() { err = errors.Join(err, w.close()) }()
	// test_counts follows the runs: what the batch's runs counted before it
	// goes out, what they count after comes in.
	keys, err := runKeys(recs)
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	subtracted, err := testCountsBefore(ctx, tx, batchKeys, keys)
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	for i := range recs {
		if err := w.record(ctx, &recs[i], now); err != nil {
			return fmt.Errorf("write run %s/%d: %w", recs[i].Job.Name, recs[i].Run.BuildID, err)
		}
	}
	if err := addBatchTestCounts(ctx, tx, batchTestCounts(recs)); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if err := dropZeros(ctx, tx, subtracted, batchKeys, keys); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	for _, c := range cursors {
		if err := w.cursor(ctx, c, now); err != nil {
			return fmt.Errorf("write cursor %s %s: %w", c.Bucket, c.Job, err)
		}
	}
	if d.beforeCommit != nil {
		d.beforeCommit()
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("write: commit: %w", err)
	}
	return nil
}

// writer holds the statements of one Write, prepared once for the batch.
type writer struct {
	job, delTests, delSymptoms, delErrors, run, test, runError, symptom, cursorStmt *sql.Stmt
	delDisruptions, disruption                                                      *sql.Stmt
}

// writerQueries are the writer's statements, in the order of writerStmts.
var writerQueries = []string{upsertJob, deleteTests, deleteSymptoms, deleteErrors, upsertRun, insertTest, insertError, insertSymptom, upsertCursor,
	deleteDisrupts, insertDisruption}

func (w *writer) stmts() []**sql.Stmt {
	return []**sql.Stmt{&w.job, &w.delTests, &w.delSymptoms, &w.delErrors, &w.run, &w.test, &w.runError, &w.symptom, &w.cursorStmt,
		&w.delDisruptions, &w.disruption}
}

// prepare compiles the writer's statements once per database, outside any
// transaction (the database has one connection, which a transaction holds):
// a crawl writes a run or a few at a time, and compiling nine statements
// for each batch cost about as much as writing it.
func (d *DB) prepare(ctx context.Context) error {
	d.prepOnce.Do(func() {
		for _, q := range writerQueries {
			stmt, err := d.db.PrepareContext(context.WithoutCancel(ctx), q)
			if err != nil {
				d.prepErr = fmt.Errorf("prepare: %w", err)
				return
			}
			d.prepared = append(d.prepared, stmt)
		}
	})
	return d.prepErr
}

// prepareWriter binds the compiled statements to tx.
func prepareWriter(ctx context.Context, d *DB, tx *sql.Tx) *writer {
	w := &writer{}
	for i, s := range w.stmts() {
		*s = tx.StmtContext(ctx, d.prepared[i])
	}
	return w
}

func (w *writer) close() error {
	var errs []error
	for _, s := range []*sql.Stmt{w.job, w.delTests, w.delSymptoms, w.delErrors, w.run, w.test, w.runError, w.symptom, w.cursorStmt, w.delDisruptions, w.disruption} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}

func (w *writer) record(ctx context.Context, rec *Record, now time.Time) error {
	j, r := rec.Job, rec.Run
	if r.Job == "" {
		r.Job = j.Name
	}
	switch {
	case j.Name == "":
		return errors.New("job has no name")
	case r.Job != j.Name:
		return fmt.Errorf("run is of job %q, not %q", r.Job, j.Name)
	case r.BuildID <= 0:
		return errors.New("build id is not positive")
	}
	if r.CrawledAt.IsZero() {
		r.CrawledAt = now
	}
	if _, err := w.job.ExecContext(ctx, j.Name, nullString(j.Type), nullString(j.Release),
		nullString(j.FromRelease), nullString(j.Upgrade), nullString(j.Platform),
		nullString(j.Network), nullString(j.Arch), nullString(j.Topology)); err != nil {
		return fmt.Errorf("job: %w", err)
	}
	// The run's keys, from the one definition of them.
	edge, variant := RunKeys(j, r.Release, r.FromRelease, r.Upgrade)
	for _, del := range []*sql.Stmt{w.delTests, w.delSymptoms, w.delErrors, w.delDisruptions} {
		if _, err := del.ExecContext(ctx, r.Job, r.BuildID); err != nil {
			return fmt.Errorf("delete old rows: %w", err)
		}
	}
	if _, err := w.run.ExecContext(ctx, r.Job, r.BuildID, r.Bucket, r.Path, r.URL,
		nullTime(r.StartedAt), nullTime(r.FinishedAt), r.Result,
		nullString(r.Release), nullString(r.FromRelease), nullString(r.Upgrade),
		nullString(r.FromVersion), nullString(r.ToVersion), nullString(r.UpgradeState),
		nullString(r.Tag), nullString(r.FromTag), nullInt(r.Pull),
		r.FetchStatus, nullString(r.FetchError), r.ObjectsRead, r.BytesRead,
		formatTime(r.CrawledAt), r.FetchAttempts, nullTime(r.GivenUpAt), nullBool(r.UpgradeStarted),
		nullString(edge.String()), nullString(variant.String())); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	for _, t := range rec.Tests {
		if _, err := w.test.ExecContext(ctx, r.Job, r.BuildID, t.Suite, t.Name, t.Status,
			t.DurationS, nullString(t.Message)); err != nil {
			return fmt.Errorf("test %q: %w", t.Name, err)
		}
	}
	for _, e := range rec.Errors {
		if _, err := w.runError.ExecContext(ctx, r.Job, r.BuildID, e.Object, e.Kind, e.Message); err != nil {
			return fmt.Errorf("error of %s: %w", e.Object, err)
		}
	}
	for _, sy := range rec.Symptoms {
		if _, err := w.symptom.ExecContext(ctx, symptomArgs(r.Job, r.BuildID, sy)...); err != nil {
			return fmt.Errorf("symptom %s: %w", sy.SymptomID, err)
		}
	}
	if err := w.disruptions(ctx, r.Job, r.BuildID, rec.Disruptions); err != nil {
		return err
	}
	return nil
}

// symptomArgs are insertSymptom's arguments, in its order.
func symptomArgs(job string, buildID int64, sy RunSymptom) []any {
	return []any{job, buildID, sy.SymptomID, sy.Hits, nullString(sy.File),
		nullInt(sy.Line), nullString(sy.Excerpt), nullTime(sy.At), nullTime(sy.LastAt), nullString(sy.RuleHash)}
}

func (w *writer) cursor(ctx context.Context, c Cursor, now time.Time) error {
	if c.Bucket == "" || c.Job == "" {
		return errors.New("cursor has no bucket or no job")
	}
	_, err := w.cursorStmt.ExecContext(ctx, c.Bucket, c.Job, c.BuildID, nullTime(c.StartedAt), formatTime(now))
	return err
}
