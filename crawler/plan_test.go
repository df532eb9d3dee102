package crawler

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/prow"
)

// TestPlanJob decides, without a database or a bucket, which runs of one
// job a crawl reads: each case is a listing, what is stored and a window.
func TestPlanJob(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	id := func(ago time.Duration) int64 { return prow.MinBuildIDAt(now.Add(-ago)) }
	periodic := jobRef{name: "periodic-job", prefix: "logs/periodic-job/"}
	presubmit := jobRef{name: "pull-job", presubmit: true, prefix: "pr-logs/directory/pull-job/"}
	dirs := func(j jobRef, names ...string) []prowcrawl.Entry {
		var out []prowcrawl.Entry
		for _, n := range names {
			out = append(out, prowcrawl.Entry{Name: j.prefix + n + "/", Prefix: true})
		}
		return append(out, prowcrawl.Entry{Name: j.prefix + "latest-build.txt", Size: 3})
	}
	ids := func(j jobRef, ids ...int64) []prowcrawl.Entry {
		var names []string
		for _, id := range ids {
			names = append(names, strconv.FormatInt(id, 10))
		}
		return dirs(j, names...)
	}
	complete := func(id int64, started time.Time) db.RunState {
		return db.RunState{BuildID: id, Result: prowcrawl.ResultSuccess, FetchStatus: prowcrawl.FetchComplete, StartedAt: started}
	}
	lookback := window{since: now.Add(-14 * 24 * time.Hour), incremental: true}
	var (
		fresh   = id(time.Hour)
		old     = id(20 * 24 * time.Hour)
		stored  = id(30 * time.Hour)
		pending = id(20 * time.Hour)
		cursor  = id(10 * time.Hour)
		lateID  = id(11 * time.Hour) // behind the cursor, within lateMargin
		before  = id(13 * 24 * time.Hour)
	)
	tests := []struct {
		name   string
		job    jobRef
		ents   []prowcrawl.Entry
		stored storedJob
		w      window
		// want are the tasks as "id path known listed", in order.
		want  []string
		late  int
		twice []int64
	}{
		{
			name: "a new job reads the runs of the lookback",
			job:  periodic, ents: ids(periodic, old, fresh), w: lookback,
			want: []string{fmt.Sprintf("%d logs/periodic-job/%d new listed", fresh, fresh)},
		},
		{
			name: "a stored whole run is not read again, a pending one is",
			job:  periodic, ents: ids(periodic, stored, pending, fresh), w: lookback,
			stored: storedJob{states: map[int64]db.RunState{
				stored:  complete(stored, now.Add(-30*time.Hour)),
				pending: {BuildID: pending, Result: prowcrawl.ResultPending, FetchStatus: prowcrawl.FetchComplete, StartedAt: now.Add(-20 * time.Hour)},
			}},
			want: []string{
				fmt.Sprintf("%d logs/periodic-job/%d known listed", pending, pending),
				fmt.Sprintf("%d logs/periodic-job/%d new listed", fresh, fresh),
			},
		},
		{
			name: "refetch reads a stored whole run again",
			job:  periodic, ents: ids(periodic, stored), w: window{since: lookback.since, incremental: true, refetch: true},
			stored: storedJob{states: map[int64]db.RunState{stored: complete(stored, now.Add(-30*time.Hour))}},
			want:   []string{fmt.Sprintf("%d logs/periodic-job/%d known listed", stored, stored)},
		},
		{
			name: "a run given up on is left, unless retried",
			job:  periodic, ents: ids(periodic, stored), w: lookback,
			stored: storedJob{states: map[int64]db.RunState{stored: {BuildID: stored, Result: prowcrawl.ResultFailure, FetchStatus: prowcrawl.FetchPartial, FetchAttempts: 5, GivenUp: true}}},
		},
		{
			name: "a run given up on is read again with retryGivenUp",
			job:  periodic, ents: ids(periodic, stored), w: window{since: lookback.since, incremental: true, retryGivenUp: true},
			stored: storedJob{states: map[int64]db.RunState{stored: {BuildID: stored, Result: prowcrawl.ResultFailure, FetchStatus: prowcrawl.FetchPartial, FetchAttempts: 5, GivenUp: true}}},
			want:   []string{fmt.Sprintf("%d logs/periodic-job/%d known listed", stored, stored)},
		},
		{
			name: "behind the cursor, a run not stored is late: read, not listed",
			job:  periodic, ents: ids(periodic, stored, lateID, cursor, fresh), w: window{incremental: true},
			stored: storedJob{
				states: map[int64]db.RunState{
					stored: complete(stored, now.Add(-30*time.Hour)),
					cursor: complete(cursor, now.Add(-10*time.Hour)),
				},
				cursor: prowcrawl.Cursor{Bucket: "ci", Job: periodic.name, BuildID: cursor}, hasCursor: true,
			},
			want: []string{
				fmt.Sprintf("%d logs/periodic-job/%d new unlisted", lateID, lateID),
				fmt.Sprintf("%d logs/periodic-job/%d new listed", fresh, fresh),
			},
			late: 1,
		},
		{
			name: "a stored run to revisit is read wherever the listing started",
			job:  periodic, ents: ids(periodic, fresh), w: lookback,
			stored: storedJob{
				states:  map[int64]db.RunState{before: {BuildID: before, Result: prowcrawl.ResultPending, FetchStatus: prowcrawl.FetchComplete}},
				revisit: []prowcrawl.Run{{BuildID: before, Path: "logs/periodic-job/x", FetchAttempts: 2}, {BuildID: fresh, Path: "logs/periodic-job/y"}},
			},
			want: []string{
				fmt.Sprintf("%d logs/periodic-job/x known unlisted", before),
				fmt.Sprintf("%d logs/periodic-job/%d new listed", fresh, fresh),
			},
		},
		{
			name: "sequential ids below the floor started before the window",
			job:  periodic, ents: dirs(periodic, "98", "99", "100", "101"), w: window{since: lookback.since, incremental: true, floor: 100},
			want: []string{"100 logs/periodic-job/100 new listed", "101 logs/periodic-job/101 new listed"},
		},
		{
			name: "a build spelled twice is read once, by its plain spelling",
			job:  periodic, ents: dirs(periodic, "09999", "9999"), w: window{},
			want: []string{"9999 logs/periodic-job/9999 new listed"},
		},
		{
			name: "a build spelled twice and stored whole is said, not read",
			job:  periodic, ents: dirs(periodic, "09999", "9999"), w: window{},
			stored: storedJob{states: map[int64]db.RunState{9999: complete(9999, time.Time{})}},
			twice:  []int64{9999},
		},
		{
			name: "a presubmit's run is found through its link",
			job:  presubmit, w: lookback,
			ents: []prowcrawl.Entry{{Name: presubmit.prefix + strconv.FormatInt(fresh, 10) + ".txt", Size: 40}, {Name: presubmit.prefix + "x/", Prefix: true}},
			want: []string{fmt.Sprintf("%d  new listed link", fresh)},
		},
		{
			name: "until bounds the window",
			job:  periodic, ents: ids(periodic, stored, fresh), w: window{since: lookback.since, until: now.Add(-24 * time.Hour)},
			want: []string{fmt.Sprintf("%d logs/periodic-job/%d new listed", stored, stored)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := planJob("ci", tc.job, tc.ents, tc.stored, tc.w)
			var got []string
			for _, tk := range p.plan.tasks {
				s := fmt.Sprintf("%d %s %s %s", tk.id, tk.path, map[bool]string{true: "known", false: "new"}[tk.known], map[bool]string{true: "listed", false: "unlisted"}[tk.listed])
				if tk.link.Name != "" {
					s += " link"
				}
				if tk.job != tc.job.name || tk.presubmit != tc.job.presubmit {
					t.Errorf("task %d is of job %s (presubmit %v), want %s", tk.id, tk.job, tk.presubmit, tc.job.name)
				}
				got = append(got, s)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("tasks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if p.late != tc.late {
				t.Errorf("late = %d, want %d", p.late, tc.late)
			}
			var twice []int64
			for _, tw := range p.twice {
				twice = append(twice, tw.id)
			}
			if !reflect.DeepEqual(twice, tc.twice) {
				t.Errorf("spelled twice = %v, want %v", twice, tc.twice)
			}
			if p.plan.job != tc.job.name || p.plan.cursor == nil || p.plan.cursor.at != tc.stored.cursor.BuildID {
				t.Errorf("plan of %q with cursor %+v, want job %q at %d", p.plan.job, p.plan.cursor, tc.job.name, tc.stored.cursor.BuildID)
			}
		})
	}
}

// TestListQuery starts the listing of a job with snowflake ids at a build
// id: well before the cursor, or before --since; a job with sequential ids
// is listed whole.
func TestListQuery(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	j := jobRef{name: "job", prefix: "logs/job/"}
	snow := prow.MinBuildIDAt(now.Add(-time.Hour))
	since := now.Add(-48 * time.Hour)
	tests := []struct {
		name   string
		stored storedJob
		w      window
		offset string
	}{
		{"nothing stored", storedJob{}, window{since: since, incremental: true}, ""},
		{"sequential ids", storedJob{states: map[int64]db.RunState{12: {}}}, window{since: since}, ""},
		{"snowflakes, from since", storedJob{states: map[int64]db.RunState{snow: {}}}, window{since: since},
			j.prefix + strconv.FormatInt(prow.MinBuildIDAt(since.Add(-idMargin)), 10)},
		{"snowflakes, from the cursor", storedJob{states: map[int64]db.RunState{snow: {}}, cursor: prowcrawl.Cursor{BuildID: snow}, hasCursor: true}, window{incremental: true},
			j.prefix + strconv.FormatInt(lateStart(snow), 10)},
		{"snowflakes, no bound", storedJob{states: map[int64]db.RunState{snow: {}}}, window{}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := listQuery(j, tc.stored, tc.w)
			want := prowcrawl.Query{Prefix: j.prefix, Delimiter: "/", StartOffset: tc.offset}
			if q != want {
				t.Errorf("query = %+v, want %+v", q, want)
			}
		})
	}
}
