package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// Evidence is a run showing a symptom, with the link to the run and the
// symptom's first evidence in it (a row of v_run_symptoms).
type Evidence struct {
	Job                     string
	BuildID                 int64
	URL                     string // the Prow view link
	Result                  prowcrawl.Result
	StartedAt               time.Time
	Edge                    string // empty when the run's release is unknown, or it is a presubmit
	Variant                 string
	Platform, Network, Arch string
	Topology, Type          string
	Symptom                 string
	Hits                    int
	File                    string
	Line                    int
	Excerpt                 string
	At                      time.Time
}

// RunEvidence returns the runs within b that show symptom and count in its
// rates (finished, their upgrade begun or not known not to have), newest
// first, at most limit of them (all when limit <= 0). A non-empty edgeKey
// ("4.13->4.14 minor") keeps the runs on that edge.
func (d *DB) RunEvidence(ctx context.Context, symptom, edgeKey string, b Bounds, limit int) ([]Evidence, error) {
	c := onCopies("rs")
	cond, args, err := b.whereDays(c)
	if err != nil {
		return nil, fmt.Errorf("evidence of %s: %w", symptom, err)
	}
	var w where
	if edgeKey != "" {
		w.add(`r.edge = ?`, edgeKey)
	}
	if limit <= 0 {
		limit = -1
	}
	// Without an edge, the newest rows are chosen from run_symptoms_days
	// alone (it holds the run's start and build id), and only those runs
	// are looked up; an edge is the run's, so each run is looked up first.
	from, sub := `run_symptoms rs INDEXED BY run_symptoms_days`, []any(nil)
	if edgeKey == "" {
		from = `(SELECT rs.rowid AS id FROM run_symptoms rs INDEXED BY run_symptoms_days
	WHERE rs.symptom_id = ? AND ` + c.counted() + ` AND ` + c.started() + cond + `
	ORDER BY rs.run_started_at DESC, rs.build_id DESC LIMIT ?) AS k
CROSS JOIN run_symptoms rs ON rs.rowid = k.id`
		sub = append(append([]any{symptom}, args...), limit)
	}
	query := `SELECT r.job, r.build_id, r.url, r.result, r.started_at, coalesce(r.edge, ''), coalesce(r.variant, ''),
	coalesce(j.platform, ''), coalesce(j.network, ''), coalesce(j.arch, ''), coalesce(j.topology, ''), coalesce(j.type, ''),
	rs.symptom_id, rs.hits, coalesce(rs.file, ''), coalesce(rs.line, 0), coalesce(rs.excerpt, ''), rs.at
FROM ` + from + `
CROSS JOIN runs r ON r.job = rs.job AND r.build_id = rs.build_id
CROSS JOIN jobs j ON j.name = r.job
WHERE rs.symptom_id = ? AND ` + c.counted() + ` AND ` + c.started() + cond + w.sql() + `
ORDER BY r.started_at DESC, r.build_id DESC
LIMIT ?`
	rows, err := d.db.QueryContext(ctx, query, append(append(append(append(sub, symptom), args...), w.args...), limit)...)
	if err != nil {
		return nil, fmt.Errorf("evidence of %s: %w", symptom, err)
	}
	defer rows.Close()
	var out []Evidence
	for rows.Next() {
		var e Evidence
		var started, at sql.NullString
		if err := rows.Scan(&e.Job, &e.BuildID, &e.URL, &e.Result, &started, &e.Edge, &e.Variant, &e.Platform, &e.Network,
			&e.Arch, &e.Topology, &e.Type, &e.Symptom, &e.Hits, &e.File, &e.Line, &e.Excerpt, &at); err != nil {
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
