package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// MergeStats is what a merge took from one input database.
type MergeStats struct {
	Runs, Tests, Symptoms int
	// Cursors counts the cursors of src past the newest run it holds of
	// their job, taken at that run (or not at all, without runs).
	Cursors int
}

// ErrUntrusted is matched (errors.Is) by the error of Merge for an input
// with a row that fails the checks: nothing of it was merged.
var ErrUntrusted = errors.New("holds rows prowcrawl cannot have written")

// CheckShard runs the checks of Merge on the database at path without
// merging it, so that a merge of many inputs can refuse an untrusted one
// before it merges any.
func CheckShard(ctx context.Context, path string) (err error) {
	if err := checkRegular(path); err != nil {
		return fmt.Errorf("merge %s: %w", path, err)
	}
	mem, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return err
	}
	defer mem.Close()
	mem.SetMaxOpenConns(1)
	if _, err := mem.ExecContext(ctx, `ATTACH DATABASE ? AS src`, roDSN(path, false)); err != nil {
		return fmt.Errorf("merge %s: %w", path, openError(err))
	}
	return checkShard(ctx, mem, path)
}

// checkShard refuses an input, attached as src, with any row that fails
// the checks: the first offending row is named.
func checkShard(ctx context.Context, q *sql.DB, src string) error {
	checks := []struct{ what, query string }{
		{"runs", `SELECT job || '/' || build_id || ': started_at ' || quote(started_at) || ', finished_at ' || quote(finished_at) ||
			', crawled_at ' || quote(crawled_at) || ', result ' || quote(result) || ', fetch_status ' || quote(fetch_status)
			FROM src.runs WHERE NOT (` + plausibleSQL("started_at") + ` AND ` + plausibleSQL("finished_at") + ` AND ` +
			plausibleSQL("crawled_at") + ` AND crawled_at IS NOT NULL
			AND (started_at IS NULL OR finished_at IS NULL OR finished_at >= started_at)
			AND typeof(build_id) = 'integer' AND build_id > 0
			AND result IN ('success', 'failure', 'aborted', 'error', 'pending')
			AND fetch_status IN ('complete', 'partial', 'error')) LIMIT 1`},
		{"run symptoms", `SELECT job || '/' || build_id || ' ' || symptom_id || ': at ' || quote(at)
			FROM src.run_symptoms WHERE NOT ` + plausibleSQL("at") + ` LIMIT 1`},
		{"tests", `SELECT job || '/' || build_id || ' ' || name || ': status ' || quote(status)
			FROM src.tests WHERE status NOT IN ('pass', 'fail', 'flake', 'skip') LIMIT 1`},
		{"crawl cursors", `SELECT bucket || ' ' || job || ': build_id ' || quote(build_id) || ', started_at ' || quote(started_at)
			FROM src.crawl_cursors WHERE NOT (` + plausibleSQL("started_at") + ` AND typeof(build_id) = 'integer' AND build_id >= 0) LIMIT 1`},
	}
	for _, c := range checks {
		var bad string
		err := q.QueryRowContext(ctx, c.query).Scan(&bad)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return fmt.Errorf("merge %s: check %s: %w", src, c.what, openError(err))
		}
		return fmt.Errorf("merge %s: %w: %s %s; nothing of it was merged", src, ErrUntrusted, c.what, bad)
	}
	return nil
}

// Merge copies the crawled data of another prowcrawl database into this one,
// in one transaction, as shard crawls are combined. A run present in both is
// taken from src when src read it more completely, or as completely and
// later; its tests, symptoms and errors come with it. Cursors keep the
// furthest position of either. Merging the same input twice changes
// nothing. The analysis tables are not merged: run analyze afterwards.
// src must be a prowcrawl database of the same schema (open it with Open
// once to bring it up to date).
//
// Every row of src is checked first, with the checks the crawler makes of
// what it reads (times prowcrawl can have stored, runs that do not end
// before they start, results and statuses it knows): an input with one
// row that fails them is refused whole, before anything is written. A
// cursor past the newest run src holds of its job is taken at that run
// (MergeStats.Cursors counts them), so that no shard can make a job skip
// runs it never read.
func (d *DB) Merge(ctx context.Context, src string) (st MergeStats, err error) {
	if err := checkRegular(src); err != nil {
		return st, fmt.Errorf("merge %s: %w", src, err)
	}
	// Read-only, and the name escaped: SQLite reads '#' and '?' in a URI.
	if _, err := d.db.ExecContext(ctx, `ATTACH DATABASE ? AS src`, roDSN(src, false)); err != nil {
		return st, fmt.Errorf("merge %s: %w", src, openError(err))
	}
	defer func() {
		if _, derr := d.db.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE src`); derr != nil {
			err = errors.Join(err, fmt.Errorf("merge %s: detach: %w", src, derr))
		}
	}()
	var hasMigrations, tables int
	if err := d.db.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE type = 'table' AND name = 'schema_migrations'), count(*)
		FROM src.sqlite_schema`).Scan(&hasMigrations, &tables); err != nil {
		return st, fmt.Errorf("merge %s: %w", src, openError(err))
	}
	switch {
	case tables == 0:
		return st, fmt.Errorf("merge %s: %w", src, ErrEmpty)
	case hasMigrations == 0:
		return st, fmt.Errorf("merge %s: %w", src, ErrForeign)
	}
	var mine, theirs int
	if err := d.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM main.schema_migrations),
		(SELECT count(*) FROM src.schema_migrations s WHERE s.version IN (SELECT version FROM main.schema_migrations))`).Scan(&mine, &theirs); err != nil {
		return st, fmt.Errorf("merge %s: not a prowcrawl database: %w", src, openError(err))
	}
	if mine != theirs {
		return st, fmt.Errorf("merge %s: %w: open it with this prowcrawl first", src, ErrOldSchema)
	}
	if err := checkShard(ctx, d.db, src); err != nil {
		return st, err
	}

	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return st, fmt.Errorf("merge %s: %w", src, err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, rollback(tx))
		}
	}()
	cols := make(map[string]string)
	for _, table := range []string{"jobs", "runs", "tests", "symptoms", "run_symptoms", "run_errors", "run_disruptions"} {
		if cols[table], err = columns(ctx, tx, table); err != nil {
			return st, fmt.Errorf("merge %s: %w", src, err)
		}
	}
	steps := []struct {
		what  string
		query string
		count *int
	}{
		// The runs src has better: new ones, more completely read ones, or
		// as complete and crawled later.
		{what: "choose runs", query: `CREATE TEMP TABLE merge_take AS
			SELECT s.job, s.build_id FROM src.runs s LEFT JOIN main.runs m USING (job, build_id)
			WHERE m.job IS NULL
			   OR (s.fetch_status = 'complete' AND s.result <> 'pending') > (m.fetch_status = 'complete' AND m.result <> 'pending')
			   OR ((s.fetch_status = 'complete' AND s.result <> 'pending') = (m.fetch_status = 'complete' AND m.result <> 'pending')
			       AND s.crawled_at > m.crawled_at)`},
		{what: "jobs", query: upsertAll("jobs", cols["jobs"], "name", "SELECT "+cols["jobs"]+" FROM src.jobs j WHERE EXISTS (SELECT 1 FROM merge_take t WHERE t.job = j.name)")},
		{what: "symptoms", query: `INSERT INTO main.symptoms (` + cols["symptoms"] + `) SELECT ` + cols["symptoms"] + ` FROM src.symptoms WHERE true
			ON CONFLICT (id) DO UPDATE SET active = max(active, excluded.active)`},
		{what: "old tests", query: `DELETE FROM main.tests WHERE (job, build_id) IN (SELECT job, build_id FROM merge_take)`},
		{what: "old symptoms", query: `DELETE FROM main.run_symptoms WHERE (job, build_id) IN (SELECT job, build_id FROM merge_take)`},
		{what: "old errors", query: `DELETE FROM main.run_errors WHERE (job, build_id) IN (SELECT job, build_id FROM merge_take)`},
		{what: "old disruptions", query: `DELETE FROM main.run_disruptions WHERE (job, build_id) IN (SELECT job, build_id FROM merge_take)`},
		{what: "runs", count: &st.Runs, query: upsertAll("runs", cols["runs"], "job, build_id",
			"SELECT "+cols["runs"]+" FROM src.runs WHERE (job, build_id) IN (SELECT job, build_id FROM merge_take)")},
		// The shard's rule sets by their digest; its runs' sets are then
		// this database's ids of them.
		{what: "rule sets", query: `INSERT INTO main.rule_sets (digest) SELECT digest FROM src.rule_sets WHERE true
			ON CONFLICT (digest) DO NOTHING`},
		{what: "rule set rules", query: `INSERT INTO main.rule_set_rules (rule_set, symptom_id, rule_hash)
			SELECT m.id, r.symptom_id, r.rule_hash FROM src.rule_set_rules r
			JOIN src.rule_sets s ON s.id = r.rule_set JOIN main.rule_sets m ON m.digest = s.digest
			WHERE true ON CONFLICT DO NOTHING`},
		{what: "runs' rule sets", query: `UPDATE main.runs SET rule_set = (SELECT m.id FROM src.rule_sets s
			JOIN main.rule_sets m ON m.digest = s.digest WHERE s.id = main.runs.rule_set)
			WHERE (job, build_id) IN (SELECT job, build_id FROM merge_take)`},
		{what: "tests", count: &st.Tests, query: `INSERT INTO main.tests (` + cols["tests"] + `) SELECT ` + cols["tests"] +
			` FROM src.tests WHERE (job, build_id) IN (SELECT job, build_id FROM merge_take)`},
		{what: "run symptoms", count: &st.Symptoms, query: `INSERT INTO main.run_symptoms (` + cols["run_symptoms"] + `) SELECT ` + cols["run_symptoms"] +
			` FROM src.run_symptoms WHERE (job, build_id) IN (SELECT job, build_id FROM merge_take)`},
		{what: "run errors", query: `INSERT INTO main.run_errors (` + cols["run_errors"] + `) SELECT ` + cols["run_errors"] +
			` FROM src.run_errors WHERE (job, build_id) IN (SELECT job, build_id FROM merge_take)`},
		{what: "run disruptions", query: `INSERT INTO main.run_disruptions (` + cols["run_disruptions"] + `) SELECT ` + cols["run_disruptions"] +
			` FROM src.run_disruptions WHERE (job, build_id) IN (SELECT job, build_id FROM merge_take)`},
		{what: "cursors", query: `INSERT INTO main.crawl_cursors (bucket, job, build_id, started_at, updated_at)
			SELECT c.bucket, c.job, min(c.build_id, r.newest), CASE WHEN c.build_id <= r.newest THEN c.started_at END, c.updated_at
			FROM src.crawl_cursors c
			JOIN (SELECT bucket, job, max(build_id) AS newest FROM src.runs GROUP BY bucket, job) r USING (bucket, job)
			WHERE true
			ON CONFLICT (bucket, job) DO UPDATE SET
				started_at = CASE WHEN excluded.build_id > build_id THEN excluded.started_at ELSE started_at END,
				updated_at = CASE WHEN excluded.build_id > build_id THEN excluded.updated_at ELSE updated_at END,
				build_id = max(build_id, excluded.build_id)`},
		{what: "cleanup", query: `DROP TABLE temp.merge_take`},
	}
	// test_counts follows the runs taken, as in Write: merge_take is
	// created by the first step, the runs are replaced by the steps
	// between "choose runs" and "cleanup".
	const takeKeys = `temp.merge_take AS k`
	var subtracted bool
	for _, s := range steps {
		switch s.what {
		case "old tests":
			if subtracted, err = testCountsBefore(ctx, tx, takeKeys); err != nil {
				return st, fmt.Errorf("merge %s: %w", src, err)
			}
		case "cleanup":
			if err := testCountsAfter(ctx, tx, subtracted, takeKeys); err != nil {
				return st, fmt.Errorf("merge %s: %w", src, err)
			}
		}
		if s.what == "cursors" {
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM src.crawl_cursors c
				WHERE c.build_id > coalesce((SELECT max(build_id) FROM src.runs r WHERE r.bucket = c.bucket AND r.job = c.job), 0)`).Scan(&st.Cursors); err != nil {
				return st, fmt.Errorf("merge %s: cursors: %w", src, err)
			}
		}
		res, err := tx.ExecContext(ctx, s.query)
		if err != nil {
			return st, fmt.Errorf("merge %s: %s: %w", src, s.what, err)
		}
		if s.count != nil {
			n, _ := res.RowsAffected()
			*s.count = int(n)
		}
	}
	if err := tx.Commit(); err != nil {
		return st, fmt.Errorf("merge %s: commit: %w", src, err)
	}
	return st, nil
}

// columns lists a table's stored columns (generated ones cannot be written).
func columns(ctx context.Context, tx *sql.Tx, table string) (string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_xinfo(?, 'main') WHERE hidden = 0 ORDER BY cid`, table)
	if err != nil {
		return "", fmt.Errorf("columns of %s: %w", table, err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return "", err
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if len(names) == 0 {
		return "", fmt.Errorf("no table %s", table)
	}
	return strings.Join(names, ", "), nil
}

// upsertAll inserts the rows of sel into table, replacing every column of a
// row whose key exists.
func upsertAll(table, cols, key, sel string) string {
	var set []string
	keys := strings.Split(key, ", ")
	for _, c := range strings.Split(cols, ", ") {
		isKey := false
		for _, k := range keys {
			isKey = isKey || k == c
		}
		if !isKey {
			set = append(set, c+" = excluded."+c)
		}
	}
	if !strings.Contains(sel, " WHERE ") {
		sel += " WHERE true" // an upsert's SELECT needs a WHERE to parse
	}
	return "INSERT INTO main." + table + " (" + cols + ") " + sel + " ON CONFLICT (" + key + ") DO UPDATE SET " + strings.Join(set, ", ")
}

// ReadyToMerge checks that the database at path can be merged, before
// anything is: a file that is not prowcrawl's, or empty, or corrupt is
// refused, never made into a database; one of an older schema is brought
// up to date, as any command would, under its writer's lock; then it is
// checked as a shard (CheckShard). Each error ends with "nothing was
// merged".
func ReadyToMerge(ctx context.Context, path string) error {
	need, err := NeedsMigration(ctx, path)
	switch {
	case errors.Is(err, ErrEmpty):
		return fmt.Errorf("input %s is empty, not a database a crawl wrote; nothing was merged", path)
	case errors.Is(err, ErrForeign):
		return fmt.Errorf("input %s is %v; nothing was merged", path, ErrForeign)
	case err != nil:
		return fmt.Errorf("input %s cannot be read (%v); nothing was merged", path, err)
	case need:
		if err := upgradeInput(ctx, path); err != nil {
			return fmt.Errorf("input %s: %w; nothing was merged", path, err)
		}
	}
	return CheckShard(ctx, path)
}

// upgradeInput brings an input's schema up to date under its writer's
// lock, closing it before the lock goes (see Lock).
func upgradeInput(ctx context.Context, path string) error {
	lock, err := AcquireLock(ctx, path, true)
	if err != nil {
		return err
	}
	d, err := Open(ctx, path)
	if err == nil {
		err = d.Close()
	}
	return errors.Join(err, lock.Release())
}
