package db

import (
	"context"
	"fmt"
)

// JobNames returns the names of the jobs that have runs stored, sorted: what
// a report's job pattern is matched against.
func (d *DB) JobNames(ctx context.Context) ([]string, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT j.name FROM jobs j
WHERE EXISTS (SELECT 1 FROM runs r INDEXED BY runs_key WHERE r.job = j.name)
ORDER BY j.name`)
	if err != nil {
		return nil, fmt.Errorf("job names: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("job names: %w", err)
		}
		out = append(out, name)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("job names: %w", err)
	}
	return out, nil
}
