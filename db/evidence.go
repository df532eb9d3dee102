package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Evidence is a run showing a symptom, with the link to the run and the
// symptom's first evidence in it (a row of v_run_symptoms).
type Evidence struct {
	Job                     string
	BuildID                 int64
	URL                     string // the Prow view link
	Result                  string
	StartedAt               time.Time
	Edge                    string // empty when the run's release is unknown
	Platform, Network, Arch string
	Symptom                 string
	Hits                    int
	File                    string
	Line                    int
	Excerpt                 string
	At                      time.Time
}

// RunEvidence returns the runs that show symptom, newest first, at most
// limit of them (all when limit <= 0). A non-empty edgeKey ("4.13->4.14
// minor") keeps the runs on that edge.
func (d *DB) RunEvidence(ctx context.Context, symptom, edgeKey string, limit int) ([]Evidence, error) {
	var w where
	if edgeKey != "" {
		w.add(`edge = ?`, edgeKey)
	}
	if limit <= 0 {
		limit = -1
	}
	rows, err := d.db.QueryContext(ctx, `SELECT job, build_id, url, result, started_at, coalesce(edge, ''),
	coalesce(platform, ''), coalesce(network, ''), coalesce(arch, ''), symptom_id, hits, coalesce(file, ''),
	coalesce(line, 0), coalesce(excerpt, ''), at
FROM v_run_symptoms
WHERE symptom_id = ?`+w.sql()+`
ORDER BY started_at DESC, build_id DESC
LIMIT ?`, append(append([]any{symptom}, w.args...), limit)...)
	if err != nil {
		return nil, fmt.Errorf("evidence of %s: %w", symptom, err)
	}
	defer rows.Close()
	var out []Evidence
	for rows.Next() {
		var e Evidence
		var started, at sql.NullString
		if err := rows.Scan(&e.Job, &e.BuildID, &e.URL, &e.Result, &started, &e.Edge, &e.Platform, &e.Network,
			&e.Arch, &e.Symptom, &e.Hits, &e.File, &e.Line, &e.Excerpt, &at); err != nil {
			return nil, fmt.Errorf("evidence of %s: %w", symptom, err)
		}
		if e.StartedAt, err = parseTime(started); err != nil {
			return nil, fmt.Errorf("evidence of %s: %w", symptom, err)
		}
		if e.At, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("evidence of %s: %w", symptom, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("evidence of %s: %w", symptom, err)
	}
	return out, nil
}
