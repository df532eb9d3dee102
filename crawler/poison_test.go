package crawler

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/mirror"
)

// exec runs a statement on the database file behind the crawler's back, as
// an older version or a hand edit would have written it.
func exec(t *testing.T, d *db.DB, q string, args ...any) {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+d.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(t.Context(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestPoisonTimes: every time read from a run's metadata is checked before
// it is stored. Prow writes seconds; a timestamp that can only be
// milliseconds is read as such. A time before 2014 or more than a day
// ahead, and a run that finishes before it starts, are a parse problem of
// their file and keep the run out of the rates (it is stored as an error,
// read again next time). Before, a started.json in milliseconds was stored
// as the year 58829, which no reader could parse back, and stopped every
// later crawl.
func TestPoisonTimes(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	dir := func(id int) string { return fmt.Sprintf("logs/%s/%d/", hostileJob, id) }
	ts := func(v int64) string { return fmt.Sprintf(`{"timestamp":%d}`, v) }
	fin := func(v int64) string { return fmt.Sprintf(`{"timestamp":%d,"passed":false,"result":"FAILURE"}`, v) }
	y2099 := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		id                int
		what              string
		started, finished string
		status, errors    string // fetch_status, kinds of run_errors
		startAt, endAt    string // as stored
	}{
		{1, "started.json in milliseconds", ts(t0.UnixMilli()), finished(t0.Add(time.Hour), "FAILURE"), "complete", "", "2026-11-20T10:00:00Z", "2026-11-20T11:00:00Z"},
		{2, "finished.json in milliseconds", started(t0), fin(t0.Add(time.Hour).UnixMilli()), "complete", "", "2026-11-20T10:00:00Z", "2026-11-20T11:00:00Z"},
		{3, "started.json past the year 9999", ts(253402300800 + 86400), finished(t0, "FAILURE"), "error", "parse", "NULL", "NULL"},
		{4, "started.json in 2099", ts(y2099.Unix()), finished(y2099.Add(time.Hour), "FAILURE"), "error", "parse", "NULL", "NULL"},
		{5, "started.json in 1970", ts(86400), finished(t0, "FAILURE"), "error", "parse", "NULL", "NULL"},
		{6, "finished before started", started(t0), finished(t0.Add(-time.Hour), "FAILURE"), "error", "parse", "2026-11-20T10:00:00Z", "NULL"},
		{7, "finished.json in 2099", started(t0), fin(y2099.Unix()), "error", "parse", "2026-11-20T10:00:00Z", "NULL"},
		{8, "finished.json in microseconds", started(t0), fin(t0.UnixMicro()), "error", "parse", "2026-11-20T10:00:00Z", "NULL"},
		{9, "a plausible run", started(t0), finished(t0.Add(time.Hour), "FAILURE"), "complete", "", "2026-11-20T10:00:00Z", "2026-11-20T11:00:00Z"},
	}
	files := map[string]string{}
	for _, tc := range tests {
		files[dir(tc.id)+"started.json"] = tc.started
		files[dir(tc.id)+"finished.json"] = tc.finished
	}
	src, err := mirror.New(writeTree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	d := openDB(t)
	cfg := Config{Jobs: upgradeJobs, Now: func() time.Time { return now }}
	sum, err := New(src, d, cfg).Run(t.Context())
	if !errors.Is(err, ErrRunsFailed) || sum.New != len(tests) || sum.Jobs != 1 {
		t.Fatalf("crawl: %v, %+v; want %d runs stored", err, sum, len(tests))
	}
	for _, tc := range tests {
		t.Run(tc.what, func(t *testing.T) {
			got := query(t, d, `SELECT fetch_status, coalesce((SELECT group_concat(kind, ',') FROM run_errors e
				WHERE e.job = r.job AND e.build_id = r.build_id), ''), coalesce(started_at, 'NULL'), coalesce(finished_at, 'NULL'),
				result IN ('success', 'failure', 'error') FROM runs r WHERE build_id = ?`, tc.id)
			counted := "1"
			if tc.status == "error" {
				counted = "0" // kept out of the rates
			}
			want := strings.Join([]string{tc.status, tc.errors, tc.startAt, tc.endAt, counted}, "|")
			if len(got) != 1 || got[0] != want {
				t.Errorf("run %d: %q, want %q", tc.id, got, want)
			}
		})
	}
	if newest, err := d.NewestRunStart(t.Context()); err != nil || !newest.Equal(t0) {
		t.Errorf("NewestRunStart = %s, %v; want %s", newest, err, t0)
	}
	// The next crawl reads the bad runs again and finds them as bad; the
	// good ones are not read again.
	sum, err = New(src, d, cfg).Run(t.Context())
	if !errors.Is(err, ErrRunsFailed) || sum.Jobs != 1 || sum.New != 0 || sum.Updated != 6 {
		t.Fatalf("second crawl: %v, %+v; want the 6 bad runs read again", err, sum)
	}
}

// TestStoredPoisonDoesNotStopCrawls: times an older version stored, or a
// hand edit, that no reader can parse (the year 58829, "garbage") or that
// no run can have (2099), and a cursor past any id Prow can have issued,
// do not stop a later crawl, do not move the analysis' "now", and are
// cleaned by migration 0006 where it finds them. Before, every crawl after
// such a row printed "crawl: 0 jobs", exited 1 and said it was interrupted.
func TestStoredPoisonDoesNotStopCrawls(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	files := map[string]string{}
	for id := 1; id <= 3; id++ {
		files[fmt.Sprintf("logs/%s/%d/started.json", hostileJob, id)] = started(t0.Add(time.Duration(id) * time.Minute))
		files[fmt.Sprintf("logs/%s/%d/finished.json", hostileJob, id)] = finished(t0.Add(time.Hour), "SUCCESS")
	}
	src, err := mirror.New(writeTree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	for _, migrated := range []bool{false, true} {
		t.Run(fmt.Sprintf("migrated=%v", migrated), func(t *testing.T) {
			d := openDB(t)
			cfg := Config{Jobs: upgradeJobs, Now: func() time.Time { return now }}
			if _, err := New(src, d, cfg).Run(t.Context()); err != nil {
				t.Fatal(err)
			}
			exec(t, d, `UPDATE runs SET started_at = '58829-05-12T19:10:00Z' WHERE build_id = 1`)
			exec(t, d, `UPDATE runs SET finished_at = 'garbage' WHERE build_id = 2`)
			exec(t, d, `UPDATE runs SET started_at = '2099-01-01T00:00:00Z', finished_at = '2099-01-01T01:00:00Z' WHERE build_id = 3`)
			exec(t, d, `INSERT INTO crawl_cursors (bucket, job, build_id, started_at, updated_at) VALUES (?, 'other-upgrade', 9223372036854775807, 'garbage', '2026-11-20T00:00:00Z')`, src.Bucket())
			if !migrated {
				// As an older version left it: migration 0006 runs on
				// the next open.
				exec(t, d, `DELETE FROM schema_migrations WHERE version = 6`)
				d.Close()
				var err error
				if d, err = db.Open(t.Context(), d.Path()); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { d.Close() })
				if got := query(t, d, `SELECT build_id || ' ' || fetch_status || ' ' || coalesce(started_at, 'NULL') FROM runs ORDER BY 1`); strings.Join(got, ",") != "1 error NULL,2 error 2026-11-20T10:02:00Z,3 error NULL" {
					t.Errorf("after migration 0006: %q", got)
				}
				if got := query(t, d, `SELECT count(*) FROM crawl_cursors WHERE build_id = 9223372036854775807 OR started_at = 'garbage'`); got[0] != "0" {
					t.Errorf("migration 0006 left the bad cursor")
				}
			} else if newest, err := d.NewestRunStart(t.Context()); err != nil || newest.Year() != 2026 {
				t.Errorf("NewestRunStart = %s, %v; want the newest plausible run's start", newest, err)
			}
			sum, err := New(src, d, cfg).Run(t.Context())
			if err != nil && (errors.Is(err, context.Canceled) || !errors.Is(err, ErrRunsFailed)) {
				t.Fatalf("crawl after the poison: %v", err)
			}
			if sum.Jobs != 1 {
				t.Errorf("crawl after the poison: %+v, want its job crawled", sum)
			}
			if got := query(t, d, `SELECT count(*) FROM crawls WHERE status = 'interrupted'`); got[0] != "0" {
				t.Error("a crawl logged itself interrupted")
			}
			if _, err := d.Status(t.Context()); err != nil {
				t.Errorf("status: %v", err)
			}
			if err := d.ExportRuns(t.Context(), func(db.ExportRun) error { return nil }); err != nil {
				t.Errorf("export: %v", err)
			}
		})
	}
}
