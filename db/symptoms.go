package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Symptom is a row of symptoms: what a classification rule detects.
type Symptom struct {
	ID, Title, Description, Bug string
	Source                      string // "builtin" or the rules file it came from
	Active                      bool
}

// SyncSymptoms makes the symptoms table match the active rules: each given
// symptom is inserted or updated and marked active; every other symptom is
// marked inactive but kept, since stored evidence refers to it.
func (d *DB) SyncSymptoms(ctx context.Context, active []Symptom) (err error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sync symptoms: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, rollback(tx))
		}
	}()
	if _, err := tx.ExecContext(ctx, `UPDATE symptoms SET active = 0`); err != nil {
		return fmt.Errorf("sync symptoms: %w", err)
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO symptoms (id, title, description, bug, source, active)
VALUES (?, ?, ?, ?, ?, 1)
ON CONFLICT (id) DO UPDATE SET title = excluded.title, description = excluded.description,
	bug = excluded.bug, source = excluded.source, active = 1`)
	if err != nil {
		return fmt.Errorf("sync symptoms: %w", err)
	}
	defer stmt.Close()
	for _, s := range active {
		if _, err := stmt.ExecContext(ctx, s.ID, s.Title, nullString(s.Description), nullString(s.Bug), s.Source); err != nil {
			return fmt.Errorf("sync symptom %s: %w", s.ID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sync symptoms: commit: %w", err)
	}
	return nil
}

// Symptoms lists the symptoms table, active ones first.
func (d *DB) Symptoms(ctx context.Context) ([]Symptom, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT id, title, coalesce(description, ''), coalesce(bug, ''), source, active
FROM symptoms ORDER BY active DESC, id`)
	if err != nil {
		return nil, fmt.Errorf("symptoms: %w", err)
	}
	defer rows.Close()
	var out []Symptom
	for rows.Next() {
		var s Symptom
		if err := rows.Scan(&s.ID, &s.Title, &s.Description, &s.Bug, &s.Source, &s.Active); err != nil {
			return nil, fmt.Errorf("symptoms: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("symptoms: %w", err)
	}
	return out, nil
}

// SymptomCount is how many runs of a job show a symptom.
type SymptomCount struct {
	Job, Symptom string
	Runs, Failed int
}

// SymptomCounts counts runs per job and symptom.
func (d *DB) SymptomCounts(ctx context.Context) ([]SymptomCount, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT s.job, s.symptom_id, count(*), sum(r.result = 'failure')
FROM run_symptoms s JOIN runs r USING (job, build_id)
GROUP BY 1, 2 ORDER BY 1, 2`)
	if err != nil {
		return nil, fmt.Errorf("symptom counts: %w", err)
	}
	defer rows.Close()
	var out []SymptomCount
	for rows.Next() {
		var c SymptomCount
		var failed sql.NullInt64
		if err := rows.Scan(&c.Job, &c.Symptom, &c.Runs, &failed); err != nil {
			return nil, fmt.Errorf("symptom counts: %w", err)
		}
		c.Failed = int(failed.Int64)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("symptom counts: %w", err)
	}
	return out, nil
}

// RunSymptoms is a run and the ids of the symptoms it shows.
type RunSymptoms struct {
	Job       string
	BuildID   int64
	Result    string
	StartedAt time.Time
	URL       string
	Symptoms  []string
}

// RunsWithSymptoms lists the newest runs that show any symptom.
func (d *DB) RunsWithSymptoms(ctx context.Context, limit int) ([]RunSymptoms, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT r.job, r.build_id, r.result, r.started_at, r.url,
	(SELECT group_concat(symptom_id, ' ') FROM (SELECT symptom_id FROM run_symptoms s
	  WHERE s.job = r.job AND s.build_id = r.build_id ORDER BY symptom_id))
FROM runs r
WHERE EXISTS (SELECT 1 FROM run_symptoms s WHERE s.job = r.job AND s.build_id = r.build_id)
ORDER BY r.started_at DESC, r.job LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("runs with symptoms: %w", err)
	}
	defer rows.Close()
	var out []RunSymptoms
	for rows.Next() {
		var r RunSymptoms
		var started sql.NullString
		var ids string
		if err := rows.Scan(&r.Job, &r.BuildID, &r.Result, &started, &r.URL, &ids); err != nil {
			return nil, fmt.Errorf("runs with symptoms: %w", err)
		}
		if r.StartedAt, err = parseTime(started); err != nil {
			return nil, err
		}
		r.Symptoms = strings.Fields(ids)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("runs with symptoms: %w", err)
	}
	return out, nil
}
