package db

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

const (
	upsertJob = `INSERT INTO jobs (name, type, release, from_release, upgrade, platform, network, arch, topology, network_stack)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (name) DO UPDATE SET
	type = excluded.type,
	release = excluded.release,
	from_release = excluded.from_release,
	upgrade = excluded.upgrade,
	platform = excluded.platform,
	network = excluded.network,
	arch = excluded.arch,
	topology = excluded.topology,
	network_stack = excluded.network_stack`

	deleteTests    = `DELETE FROM tests WHERE job = ? AND build_id = ?`
	deleteSymptoms = `DELETE FROM run_symptoms WHERE job = ? AND build_id = ?`
	deleteErrors   = `DELETE FROM run_errors WHERE job = ? AND build_id = ?`
	deleteDisrupts = `DELETE FROM run_disruptions WHERE job = ? AND build_id = ?`

	// An upsert, not INSERT OR REPLACE: REPLACE deletes the old row first,
	// which would cascade to rows of the run that are not ours to drop.
	upsertRun = `INSERT INTO runs (job, build_id, bucket, path, url, started_at, finished_at, result,
	release, from_release, upgrade, from_version, to_version, upgrade_state, tag, from_tag, pull,
	fetch_status, fetch_error, objects_read, bytes_read, crawled_at, fetch_attempts, given_up_at, upgrade_started, edge, variant, rule_set,
	overall_result, cluster_networks, service_networks)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
	variant = excluded.variant,
	rule_set = excluded.rule_set,
	overall_result = excluded.overall_result,
	cluster_networks = excluded.cluster_networks,
	service_networks = excluded.service_networks`

	// A test listed twice in a run (two JUnit files, a retry) is merged as
	// the design defines it: failed and passed is a flake; a skip yields to
	// any other outcome. The first failure message is kept. (testRows is
	// the INSERT.)
	testConflict = `ON CONFLICT (job, build_id, suite, name) DO UPDATE SET
	status = CASE
		WHEN status = excluded.status THEN status
		WHEN status = 'skip' THEN excluded.status
		WHEN excluded.status = 'skip' THEN status
		ELSE 'flake'
	END,
	duration_s = max(coalesce(duration_s, excluded.duration_s), coalesce(excluded.duration_s, duration_s)),
	message = coalesce(message, excluded.message)`

	// A symptom with the copies of the run's columns (migration 0017) that
	// the counts of a window read, from the stored run: the trigger that
	// would otherwise fill them has nothing to do. (The writer binds the
	// copies itself: symptomRows.)
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

// The deletes of a batch: the rows of every run of the batch that the
// database holds, in one statement per table rather than four per run (a
// crawl's runs are nearly all new, and each statement costs its setup).
const (
	deleteBatchTests    = `DELETE FROM tests WHERE (job, build_id) IN (SELECT k.job, k.build_id FROM ` + batchKeys + `)`
	deleteBatchSymptoms = `DELETE FROM run_symptoms WHERE (job, build_id) IN (SELECT k.job, k.build_id FROM ` + batchKeys + `)`
	deleteBatchErrors   = `DELETE FROM run_errors WHERE (job, build_id) IN (SELECT k.job, k.build_id FROM ` + batchKeys + `)`
	deleteBatchDisrupts = `DELETE FROM run_disruptions WHERE (job, build_id) IN (SELECT k.job, k.build_id FROM ` + batchKeys + `)`
)

// maxRows is the most rows one INSERT of the writer carries. A run's tests
// go in statements of maxRows rows, then of the powers of two below it, so
// that a few statements, compiled once, store any number of rows: each
// statement executed costs about as much as several rows it inserts.
const maxRows = 32

// rowSizes are the numbers of rows of the writer's multi-row statements,
// largest first.
var rowSizes = func() []int {
	var sizes []int
	for n := maxRows; n >= 1; n /= 2 {
		sizes = append(sizes, n)
	}
	return sizes
}()

// multiRow is an INSERT of n rows: head, then n times row (the VALUES of a
// row, with anonymous parameters: SQLite looks a numbered one up by name
// each time it is bound, a cost that grows with the statement), then tail.
type multiRow struct {
	head, row, tail string
}

func (m multiRow) query(n int) string {
	var b strings.Builder
	b.WriteString(m.head)
	b.WriteString("\nVALUES ")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n\t")
		}
		b.WriteString(m.row)
	}
	b.WriteString(m.tail)
	return b.String()
}

// values is the VALUES of a row of n parameters.
func values(n int) string {
	return "(?" + strings.Repeat(", ?", n-1) + ")"
}

// The multi-row statements of the writer; each row's parameters begin with
// the run's job and build id. Symptoms and disruption rows carry the copies
// of their run's columns (migration 0017) next, as the run's upsert just
// stored them, so that the triggers that would otherwise fill them find
// nothing to do.
var (
	testRows = multiRow{
		head: `INSERT INTO tests (job, build_id, suite, name, status, duration_s, message)`,
		row:  values(7),
		tail: "\n" + testConflict,
	}
	symptomRows = multiRow{
		head: `INSERT INTO run_symptoms (job, build_id, ` + runCopies + `, symptom_id, hits, file, line, excerpt, at, last_at, rule_hash)`,
		row:  values(16),
	}
	disruptionRows = multiRow{
		head: `INSERT INTO run_disruptions (job, build_id, ` + runCopies + `, file, backend, backend_name, connection, disrupted_s, source)`,
		row:  values(14),
		tail: "\n" + disruptionConflict,
	}
	countRows = multiRow{
		head: `INSERT INTO test_counts (job, release, from_release, upgrade, suite, name, runs, failures, flakes)`,
		row:  values(9),
		tail: "\n" + countConflict,
	}
)

// The statements of the writer, by their index in writerQueries; each
// multi-row statement has one entry per size of rowSizes from its first.
const (
	qJob = iota
	qDelTests
	qDelSymptoms
	qDelErrors
	qDelDisruptions
	qDelBatchTests
	qDelBatchSymptoms
	qDelBatchErrors
	qDelBatchDisruptions
	qRun
	qError
	qCursor
	qTests
)

var (
	qSymptoms    = qTests + len(rowSizes)
	qDisruptions = qSymptoms + len(rowSizes)
	qCounts      = qDisruptions + len(rowSizes)
)

// writerQueries are the writer's statements, in the order of the q
// constants.
var writerQueries = func() []string {
	qs := []string{upsertJob, deleteTests, deleteSymptoms, deleteErrors, deleteDisrupts,
		deleteBatchTests, deleteBatchSymptoms, deleteBatchErrors, deleteBatchDisrupts, upsertRun, insertError, upsertCursor}
	for _, m := range []multiRow{testRows, symptomRows, disruptionRows, countRows} {
		for _, n := range rowSizes {
			qs = append(qs, m.query(n))
		}
	}
	return qs
}()

// Write stores recs and moves cursors in one transaction: either all of it is
// stored or none. Each record replaces the run's tests, errors and symptoms
// and updates its run and job rows, so writing a record twice leaves the same
// rows. A cursor never moves backwards.
func (d *DB) Write(ctx context.Context, recs []prowcrawl.Record, cursors []prowcrawl.Cursor) (err error) {
	if len(recs) == 0 && len(cursors) == 0 {
		return nil
	}
	now := time.Now()
	if err := d.prepare(ctx); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	// A statement that may fail after it changed a row (one of many rows,
	// or with triggers) keeps what it changed in a statement journal, a
	// temporary file once it holds more than a few pages: the writer's
	// statements wrote and read it back a page at a time, a sixth of the
	// time of a batch. The connection keeps it in memory for the
	// transaction (the journal of one statement is small), then goes back
	// to the default, so that the sorts of large reads still spill to
	// disk.
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	defer func() { err = errors.Join(err, conn.Close()) }()
	if _, err := conn.ExecContext(ctx, "PRAGMA temp_store = MEMORY"); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	defer func() {
		if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA temp_store = DEFAULT"); rerr != nil {
			err = errors.Join(err, fmt.Errorf("write: %w", rerr))
		}
	}()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, rollback(tx))
		}
	}()
	w := &writer{ctx: ctx, d: d, tx: tx, bound: make([]*sql.Stmt, len(d.prepared))}
	defer func() { err = errors.Join(err, w.close()) }()
	// test_counts follows the runs: what the batch's runs counted before it
	// goes out, what they count after comes in.
	keys, err := runKeys(recs)
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if len(recs) > 0 {
		subtracted, err := testCountsBefore(ctx, tx, batchKeys, keys)
		if err != nil {
			return fmt.Errorf("write: %w", err)
		}
		// The rows the batch's runs held go; a run written twice in the
		// batch loses its first record's rows when the second comes.
		for _, q := range []int{qDelBatchTests, qDelBatchSymptoms, qDelBatchErrors, qDelBatchDisruptions} {
			if _, err := w.exec(q, keys); err != nil {
				return fmt.Errorf("write: delete old rows: %w", err)
			}
		}
		written := make(map[writtenRun]bool, len(recs))
		for i := range recs {
			if err := w.record(&recs[i], now, written); err != nil {
				return fmt.Errorf("write run %s/%d: %w", recs[i].Job.Name, recs[i].Run.BuildID, err)
			}
		}
		if err := w.testCounts(batchTestCounts(recs)); err != nil {
			return fmt.Errorf("write: %w", err)
		}
		if err := dropZeros(ctx, tx, subtracted, batchKeys, keys); err != nil {
			return fmt.Errorf("write: %w", err)
		}
	}
	for _, c := range cursors {
		if err := w.cursor(c, now); err != nil {
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

// writtenRun is the key of a run a batch wrote.
type writtenRun struct {
	job   string
	build int64
}

// writer is one Write: the statements, compiled once per database, bound
// to its transaction as they are first used.
type writer struct {
	ctx   context.Context
	d     *DB
	tx    *sql.Tx
	bound []*sql.Stmt
	args  []any // the arguments of a statement, reused
	// jobs are the rows of jobs the batch wrote: a batch holds runs of a
	// few jobs, and writing one again with the same columns changes nothing.
	jobs []prowcrawl.Job
	sets ruleSets
}

// prepare compiles the writer's statements once per database, outside any
// transaction (the database has one connection, which a transaction holds):
// a crawl writes a run or a few at a time, and compiling the statements
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

// exec runs statement q of writerQueries in the transaction.
func (w *writer) exec(q int, args ...any) (sql.Result, error) {
	s := w.bound[q]
	if s == nil {
		s = w.tx.StmtContext(w.ctx, w.d.prepared[q])
		w.bound[q] = s
	}
	return s.ExecContext(w.ctx, args...)
}

func (w *writer) close() error {
	var errs []error
	for _, s := range w.bound {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}

// rows inserts n rows with the multi-row statements that begin at q: in
// statements of the sizes of rowSizes, largest first. Each row's parameters
// are shared, then those that row(i) appends to w.args for row i.
func (w *writer) rows(q int, n int, shared []any, row func(i int)) error {
	for i := 0; i < n; {
		k := 0
		for rowSizes[k] > n-i {
			k++
		}
		size := rowSizes[k]
		w.args = w.args[:0]
		for r := i; r < i+size; r++ {
			w.args = append(w.args, shared...)
			row(r)
		}
		if _, err := w.exec(q+k, w.args...); err != nil {
			return err
		}
		i += size
	}
	return nil
}

func (w *writer) record(rec *prowcrawl.Record, now time.Time, written map[writtenRun]bool) error {
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
	if !slices.Contains(w.jobs, j) {
		if _, err := w.exec(qJob, j.Name, nullString(j.Type), nullString(j.Release),
			nullString(j.FromRelease), nullString(j.Upgrade), nullString(j.Platform),
			nullString(j.Network), nullString(j.Arch), nullString(j.Topology), nullString(j.Stack)); err != nil {
			return fmt.Errorf("job: %w", err)
		}
		w.jobs = append(w.jobs, j)
	}
	// The run's keys, from the one definition of them.
	edge, variant := prowcrawl.RunKeys(j, r.Release, r.FromRelease, r.Upgrade)
	key := writtenRun{r.Job, r.BuildID}
	if written[key] {
		// The run's second record in the batch replaces the first.
		for _, q := range []int{qDelTests, qDelSymptoms, qDelErrors, qDelDisruptions} {
			if _, err := w.exec(q, r.Job, r.BuildID); err != nil {
				return fmt.Errorf("delete old rows: %w", err)
			}
		}
	}
	written[key] = true
	// The columns of the run that its symptoms and disruption rows copy,
	// as the upsert stores them: runCopies' order.
	startedAt, upgradeStarted := nullTime(r.StartedAt), nullBool(r.UpgradeStarted)
	release, fromRelease, upgrade := nullString(r.Release), nullString(r.FromRelease), nullString(r.Upgrade)
	var err error
	rules := rec.Rules
	if rules == nil && !rec.NotClassified {
		if rules, err = w.sets.active(w.ctx, w.tx); err != nil {
			return err
		}
	}
	set, err := w.sets.id(w.ctx, w.tx, rules)
	if err != nil {
		return err
	}
	if _, err := w.exec(qRun, r.Job, r.BuildID, r.Bucket, r.Path, r.URL,
		startedAt, nullTime(r.FinishedAt), r.Result,
		release, fromRelease, upgrade,
		nullString(r.FromVersion), nullString(r.ToVersion), nullString(r.UpgradeState),
		nullString(r.Tag), nullString(r.FromTag), nullInt(r.Pull),
		r.FetchStatus, nullString(r.FetchError), r.ObjectsRead, r.BytesRead,
		formatTime(r.CrawledAt), r.FetchAttempts, nullTime(r.GivenUpAt), upgradeStarted,
		nullString(edge.String()), nullString(variant.String()), set,
		nullString(string(r.Overall)), nullString(strings.Join(r.ClusterNetworks, ",")), nullString(strings.Join(r.ServiceNetworks, ","))); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	shared := []any{r.Job, r.BuildID}
	tests := rec.Tests
	if err := w.rows(qTests, len(tests), shared, func(i int) {
		t := &tests[i]
		w.args = append(w.args, t.Suite, t.Name, t.Status, t.DurationS, nullString(t.Message))
	}); err != nil {
		return fmt.Errorf("tests: %w", err)
	}
	for _, e := range rec.Errors {
		if _, err := w.exec(qError, r.Job, r.BuildID, e.Object, e.Kind, e.Message); err != nil {
			return fmt.Errorf("error of %s: %w", e.Object, err)
		}
	}
	// run_in_rates: 0 for a run counted apart (inRatesOf).
	inRates := upgradeStarted
	if r.Overall.Infrastructure() {
		inRates = int64(0)
	}
	shared = append(shared, startedAt, r.Result, inRates, release, fromRelease, upgrade)
	syms := rec.Symptoms
	if err := w.rows(qSymptoms, len(syms), shared, func(i int) {
		sy := &syms[i]
		w.args = append(w.args, sy.SymptomID, sy.Hits, nullString(sy.File),
			nullInt(sy.Line), nullString(sy.Excerpt), nullTime(sy.At), nullTime(sy.LastAt), nullString(sy.RuleHash))
	}); err != nil {
		return fmt.Errorf("symptoms: %w", err)
	}
	if err := w.disruptions(shared, rec.Disruptions); err != nil {
		return err
	}
	return nil
}

// testCounts adds counts to test_counts, in the order of its key.
func (w *writer) testCounts(counts map[countKey]testCount) error {
	if len(counts) == 0 {
		return nil
	}
	keys := slices.SortedFunc(maps.Keys(counts), func(a, b countKey) int {
		return cmp.Or(cmp.Compare(a.job, b.job), cmp.Compare(a.release, b.release),
			cmp.Compare(a.fromRelease, b.fromRelease), cmp.Compare(a.upgrade, b.upgrade),
			cmp.Compare(a.suite, b.suite), cmp.Compare(a.name, b.name))
	})
	if err := w.rows(qCounts, len(keys), nil, func(i int) {
		k := keys[i]
		c := counts[k]
		w.args = append(w.args, k.job, k.release, k.fromRelease, k.upgrade, k.suite, k.name,
			c.runs, c.failures, c.flakes)
	}); err != nil {
		return fmt.Errorf("test counts: add: %w", err)
	}
	return nil
}

// symptomArgs are insertSymptom's arguments, in its order.
func symptomArgs(job string, buildID int64, sy prowcrawl.RunSymptom) []any {
	return []any{job, buildID, sy.SymptomID, sy.Hits, nullString(sy.File),
		nullInt(sy.Line), nullString(sy.Excerpt), nullTime(sy.At), nullTime(sy.LastAt), nullString(sy.RuleHash)}
}

func (w *writer) cursor(c prowcrawl.Cursor, now time.Time) error {
	if c.Bucket == "" || c.Job == "" {
		return errors.New("cursor has no bucket or no job")
	}
	_, err := w.exec(qCursor, c.Bucket, c.Job, c.BuildID, nullTime(c.StartedAt), formatTime(now))
	return err
}
