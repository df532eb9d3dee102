package db

import (
	"context"
	"fmt"
	"time"
)

// WeeklyRate is a symptom's rate on an edge in one ISO week.
type WeeklyRate struct {
	Edge      string
	Week      string    // the ISO week, "2026-W47"
	WeekStart time.Time // its Monday, 00:00 UTC
	Runs      int       // finished runs started that week
	Hits      int       // of those, the runs showing the symptom
	Rate      float64   // Hits / Runs
}

// WeeklyRates returns symptom's rate per edge and ISO week of the runs'
// start, over every finished run with a known edge and start, ordered by
// edge and week: a trend to chart.
func (d *DB) WeeklyRates(ctx context.Context, symptom string) ([]WeeklyRate, error) {
	// The runs per week are counted in runs_edge, by edge and week, one
	// range of the index each (edges found by skipping through it, weeks
	// from the edge's first run to its last): no sort of every run, nor a
	// lookup of run_symptoms for every run. The hits come from the
	// symptom's evidence.
	rows, err := d.db.QueryContext(ctx, `WITH RECURSIVE
edges (edge) AS (
	SELECT min(r.edge) FROM runs r WHERE r.edge IS NOT NULL
	UNION ALL
	SELECT (SELECT min(r.edge) FROM runs r WHERE r.edge > e.edge) FROM edges e WHERE e.edge IS NOT NULL
),
weeks (edge, monday, last) AS (
	SELECT e.edge,
		date((SELECT min(r.started_at) FROM runs r WHERE r.edge = e.edge), '-6 days', 'weekday 1'),
		(SELECT max(r.started_at) FROM runs r WHERE r.edge = e.edge)
	FROM edges e WHERE e.edge IS NOT NULL
	UNION ALL
	SELECT w.edge, date(w.monday, '+7 days'), w.last FROM weeks w WHERE date(w.monday, '+7 days') <= w.last
)
SELECT t.edge, t.week, t.monday, t.runs, coalesce(h.hits, 0)
FROM (
	SELECT w.edge, strftime('%G-W%V', w.monday) AS week, w.monday, (
		SELECT count(*) FROM runs r INDEXED BY runs_edge
		WHERE r.edge = w.edge AND r.started_at >= w.monday AND r.started_at < date(w.monday, '+7 days')
			AND `+"+"+countedRun+`
	) AS runs
	FROM weeks w
) t
LEFT JOIN (
	SELECT r.edge, strftime('%G-W%V', r.started_at) AS week, count(*) AS hits
	FROM run_symptoms rs JOIN runs r INDEXED BY runs_key ON r.job = rs.job AND r.build_id = rs.build_id
	WHERE rs.symptom_id = ? AND `+"+"+countedRun+` AND r.edge IS NOT NULL AND r.started_at IS NOT NULL
	GROUP BY 1, 2
) h ON h.edge = t.edge AND h.week = t.week
WHERE t.runs > 0
ORDER BY t.edge, t.week`, symptom)
	if err != nil {
		return nil, fmt.Errorf("weekly rates of %s: %w", symptom, err)
	}
	defer rows.Close()
	var out []WeeklyRate
	for rows.Next() {
		var w WeeklyRate
		var monday string
		if err := rows.Scan(&w.Edge, &w.Week, &monday, &w.Runs, &w.Hits); err != nil {
			return nil, fmt.Errorf("weekly rates of %s: %w", symptom, err)
		}
		if w.WeekStart, err = time.Parse(time.DateOnly, monday); err != nil {
			return nil, fmt.Errorf("weekly rates of %s: %w", symptom, err)
		}
		w.Rate = float64(w.Hits) / float64(w.Runs)
		out = append(out, w)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("weekly rates of %s: %w", symptom, err)
	}
	return out, nil
}
