package db

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

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
	rows, err := d.db.QueryContext(ctx, `SELECT r.job, r.build_id, r.bucket, r.path, coalesce(r.edge, ''), r.result, `+explained+`
FROM runs r WHERE `+where+` ORDER BY r.job, r.build_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("failure runs: %w", err)
	}
	defer rows.Close()
	var out []FailureRun
	for rows.Next() {
		var r FailureRun
		if err := rows.Scan(&r.Job, &r.BuildID, &r.Bucket, &r.Path, &r.Edge, &r.Result, &r.Explained); err != nil {
			return nil, fmt.Errorf("failure runs: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
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
