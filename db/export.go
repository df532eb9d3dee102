package db

import (
	"context"
	"database/sql"
	"fmt"
)

// ExportRun is a run with its job's variants, tests and symptoms, as an
// export writes it.
type ExportRun struct {
	Job      Job
	Run      Run
	Tests    []Test
	Symptoms []RunSymptom
}

// exportPage is how many runs are read at a time: the database has one
// connection, so runs, tests and symptoms are read page by page rather than
// as three open cursors.
const exportPage = 500

// ExportRuns calls fn for every run, in (job, build_id) order.
func (d *DB) ExportRuns(ctx context.Context, fn func(ExportRun) error) error {
	var lastJob string
	var lastID int64 = -1
	for {
		page, err := d.exportPage(ctx, lastJob, lastID)
		if err != nil {
			return err
		}
		if len(page) == 0 {
			return nil
		}
		for _, r := range page {
			if err := fn(r); err != nil {
				return err
			}
		}
		last := page[len(page)-1].Run
		lastJob, lastID = last.Job, last.BuildID
	}
}

func (d *DB) exportPage(ctx context.Context, afterJob string, afterID int64) ([]ExportRun, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT j.name, coalesce(j.type, ''), coalesce(j.release, ''), coalesce(j.from_release, ''),
	coalesce(j.upgrade, ''), coalesce(j.platform, ''), coalesce(j.network, ''), coalesce(j.arch, ''),
	r.build_id, r.bucket, r.path, r.url, r.started_at, r.finished_at, r.result, coalesce(r.release, ''), coalesce(r.from_release, ''),
	coalesce(r.upgrade, ''), coalesce(r.from_version, ''), coalesce(r.to_version, ''), coalesce(r.upgrade_state, ''),
	coalesce(r.tag, ''), coalesce(r.from_tag, ''), coalesce(r.pull, 0), r.fetch_status, coalesce(r.fetch_error, ''),
	r.objects_read, r.bytes_read, r.crawled_at
FROM runs r JOIN jobs j ON j.name = r.job
WHERE (r.job, r.build_id) > (?, ?)
ORDER BY r.job, r.build_id LIMIT ?`, afterJob, afterID, exportPage)
	if err != nil {
		return nil, fmt.Errorf("export runs: %w", err)
	}
	defer rows.Close()
	var page []ExportRun
	for rows.Next() {
		var e ExportRun
		j, r := &e.Job, &e.Run
		var started, finished, crawled sql.NullString
		if err := rows.Scan(&j.Name, &j.Type, &j.Release, &j.FromRelease, &j.Upgrade, &j.Platform, &j.Network, &j.Arch,
			&r.BuildID, &r.Bucket, &r.Path, &r.URL, &started, &finished, &r.Result, &r.Release, &r.FromRelease,
			&r.Upgrade, &r.FromVersion, &r.ToVersion, &r.UpgradeState, &r.Tag, &r.FromTag, &r.Pull, &r.FetchStatus, &r.FetchError,
			&r.ObjectsRead, &r.BytesRead, &crawled); err != nil {
			return nil, fmt.Errorf("export runs: %w", err)
		}
		r.Job = j.Name
		var perr error
		if r.StartedAt, perr = parseTime(started); perr == nil {
			if r.FinishedAt, perr = parseTime(finished); perr == nil {
				r.CrawledAt, perr = parseTime(crawled)
			}
		}
		if perr != nil {
			return nil, fmt.Errorf("export run %s/%d: %w", r.Job, r.BuildID, perr)
		}
		page = append(page, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("export runs: %w", err)
	}
	rows.Close()
	if len(page) == 0 {
		return nil, nil
	}
	first, last := page[0].Run, page[len(page)-1].Run
	index := make(map[runKey]int, len(page))
	for i, e := range page {
		index[runKey{e.Run.Job, e.Run.BuildID}] = i
	}
	trows, err := d.db.QueryContext(ctx, `SELECT job, build_id, suite, name, status, coalesce(duration_s, 0), coalesce(message, '')
FROM tests WHERE (job, build_id) >= (?, ?) AND (job, build_id) <= (?, ?) ORDER BY job, build_id, suite, name`,
		first.Job, first.BuildID, last.Job, last.BuildID)
	if err != nil {
		return nil, fmt.Errorf("export tests: %w", err)
	}
	defer trows.Close()
	for trows.Next() {
		var k runKey
		var t Test
		if err := trows.Scan(&k.job, &k.id, &t.Suite, &t.Name, &t.Status, &t.DurationS, &t.Message); err != nil {
			return nil, fmt.Errorf("export tests: %w", err)
		}
		if i, ok := index[k]; ok {
			page[i].Tests = append(page[i].Tests, t)
		}
	}
	if err := trows.Err(); err != nil {
		return nil, fmt.Errorf("export tests: %w", err)
	}
	trows.Close()
	srows, err := d.db.QueryContext(ctx, `SELECT job, build_id, symptom_id, hits, coalesce(file, ''), coalesce(line, 0), coalesce(excerpt, ''), at
FROM run_symptoms WHERE (job, build_id) >= (?, ?) AND (job, build_id) <= (?, ?) ORDER BY job, build_id, symptom_id`,
		first.Job, first.BuildID, last.Job, last.BuildID)
	if err != nil {
		return nil, fmt.Errorf("export symptoms: %w", err)
	}
	defer srows.Close()
	for srows.Next() {
		var k runKey
		var s RunSymptom
		var at sql.NullString
		if err := srows.Scan(&k.job, &k.id, &s.SymptomID, &s.Hits, &s.File, &s.Line, &s.Excerpt, &at); err != nil {
			return nil, fmt.Errorf("export symptoms: %w", err)
		}
		if s.At, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("export symptoms: %w", err)
		}
		if i, ok := index[k]; ok {
			page[i].Symptoms = append(page[i].Symptoms, s)
		}
	}
	if err := srows.Err(); err != nil {
		return nil, fmt.Errorf("export symptoms: %w", err)
	}
	return page, nil
}

type runKey struct {
	job string
	id  int64
}
