package db

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// TestWriteTimelinesAndDisruptions stores a run's symptom timeline and
// disruption: last_at beside at, both NULL for evidence without a time;
// a file's missing duration as NULL, not zero; a run's files summed in
// v_disruption; rewriting the run replaces its rows.
func TestWriteTimelinesAndDisruptions(t *testing.T) {
	d, err := Open(t.Context(), filepath.Join(t.TempDir(), "prowcrawl.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.SyncSymptoms(t.Context(), []Symptom{{ID: "dated", Title: "d", Source: "builtin"}, {ID: "undated", Title: "u", Source: "builtin"}}); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	rec := prowcrawl.Record{
		Job: prowcrawl.Job{Name: "periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade", Release: "4.14", FromRelease: "4.13", Upgrade: "minor"},
		Run: prowcrawl.Run{BuildID: 1, Bucket: "b", Path: "logs/j/1", URL: "u", StartedAt: at, FinishedAt: at.Add(2 * time.Hour), Result: "failure",
			Release: "4.14", FromRelease: "4.13", Upgrade: "minor", FetchStatus: "complete"},
		Symptoms: []prowcrawl.RunSymptom{
			{SymptomID: "dated", Hits: 2, At: at.Add(time.Minute), LastAt: at.Add(3 * time.Minute)},
			{SymptomID: "undated", Hits: 1},
		},
		Disruptions: []prowcrawl.RunDisruption{
			{File: "a/backend-disruption_1.json", Backend: "kube-api-new-connections", BackendName: "kube-api", Connection: "new", Seconds: 1.5, Source: prowcrawl.DisruptionFromFile},
			{File: "a/backend-disruption_2.json", Backend: "kube-api-new-connections", BackendName: "kube-api", Connection: "new", Seconds: 2, Source: prowcrawl.DisruptionFromFile},
			{File: "a/backend-disruption_1.json", Backend: "oauth-api-new-connections", Seconds: math.NaN(), Source: prowcrawl.DisruptionFromFile},
		},
	}
	if err := d.Write(t.Context(), []prowcrawl.Record{rec}, nil); err != nil {
		t.Fatal(err)
	}
	q := func(query string) []string {
		t.Helper()
		rows, err := d.db.QueryContext(t.Context(), query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		return out
	}
	if got, want := q(`SELECT symptom_id || ' ' || coalesce(at, 'NULL') || ' ' || coalesce(last_at, 'NULL') || ' ' || coalesce(duration_s, 'NULL') FROM v_run_symptoms ORDER BY 1`),
		[]string{"dated 2026-11-20T10:01:00Z 2026-11-20T10:03:00Z 120.0", "undated NULL NULL NULL"}; !slices.Equal(got, want) {
		t.Errorf("timelines %q, want %q", got, want)
	}
	if got, want := q(`SELECT backend || ' ' || files || ' ' || coalesce(disrupted_s, 'NULL') FROM v_disruption ORDER BY 1`),
		[]string{"kube-api-new-connections 2 3.5", "oauth-api-new-connections 1 NULL"}; !slices.Equal(got, want) {
		t.Errorf("disruption %q, want %q", got, want)
	}
	rec.Disruptions = rec.Disruptions[:1]
	if err := d.Write(t.Context(), []prowcrawl.Record{rec}, nil); err != nil {
		t.Fatal(err)
	}
	if got := q(`SELECT backend || ' ' || disrupted_s FROM run_disruptions`); !slices.Equal(got, []string{"kube-api-new-connections 1.5"}) {
		t.Errorf("after a rewrite: %q", got)
	}
	bad := rec
	bad.Disruptions = []prowcrawl.RunDisruption{{File: "f", Backend: "b", Seconds: -1, Source: prowcrawl.DisruptionFromFile}}
	if err := d.Write(t.Context(), []prowcrawl.Record{bad}, nil); err == nil {
		t.Error("negative seconds stored")
	}
}

// TestDisruptionCellsWindow checks the disruption a window reads by day
// (whole days from disruption_days, the days an end cuts from the totals)
// against each run's total counted straight from run_disruptions and runs:
// per job, backend and total, the runs in the window, in the sample and in
// the basis window, and the first and last start of each.
func TestDisruptionCellsWindow(t *testing.T) {
	d := anStore(t)
	var recs []prowcrawl.Record
	for i := range 60 {
		// Runs every five hours over twelve days, of two jobs; a few
		// totals repeat, one run in seven never began its upgrade.
		start := anNow.Add(-time.Duration(i*5) * time.Hour)
		j := anMinor
		if i%3 == 0 {
			j = anMicro
		}
		r := winRun(j, int64(100+i), []string{"success", "failure", "error", "aborted"}[i%4], start, "etcd")
		r.Disruptions[0].Seconds = float64(i % 4)
		if i%7 == 0 {
			never := false
			r.Run.UpgradeStarted = &never
		}
		recs = append(recs, r)
	}
	write(t, d, recs)
	h := time.Hour
	sample := Window{From: anNow.Add(-3*24*h - 2*h), To: anNow.Add(-h)}
	basis := Window{From: anNow.Add(-20 * 24 * h), To: sample.From}
	// A window, and the whole history (zero bounds), as analyze reads it.
	for _, b := range []Bounds{{Since: anNow.Add(-9*24*h - 7*h)}, {}} {
		type sums struct {
			runs, sample, basis                       int
			first, last, sFirst, sLast, bFirst, bLast string
		}
		lo := func(a, b string) string {
			if a == "" || b != "" && b < a {
				return b
			}
			return a
		}
		hi := func(a, b string) string { return max(a, b) }
		got := map[string]*sums{}
		if err := d.DisruptionCells(t.Context(), b, sample, basis, func(c DisruptionCell) error {
			k := fmt.Sprintf("%s %s %v", c.Job, c.Backend, c.Seconds)
			s := got[k]
			if s == nil {
				s = &sums{}
				got[k] = s
			}
			s.runs, s.sample, s.basis = s.runs+c.Runs, s.sample+c.Sample, s.basis+c.Basis
			f := func(t time.Time) string {
				if t.IsZero() {
					return ""
				}
				return formatTime(t)
			}
			s.first, s.last = lo(s.first, f(c.First)), hi(s.last, f(c.Last))
			s.sFirst, s.sLast = lo(s.sFirst, f(c.SampleFirst)), hi(s.sLast, f(c.SampleLast))
			s.bFirst, s.bLast = lo(s.bFirst, f(c.BasisFirst)), hi(s.bLast, f(c.BasisLast))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		since := ""
		if !b.Since.IsZero() {
			since = " AND r.started_at >= '" + formatTime(b.Since) + "'"
		}
		rows := queryStrings(t, d.db, `SELECT r.job || ' ' || d.backend || ' ' || sum(d.disrupted_s) || '|' || r.started_at FROM runs r
	JOIN run_disruptions d ON d.job = r.job AND d.build_id = r.build_id
	WHERE r.result IN ('success', 'failure', 'error') AND r.upgrade_started IS NOT 0 `+since+`
	GROUP BY r.job, r.build_id, d.backend HAVING sum(d.disrupted_s) IS NOT NULL`)
		want := map[string]*sums{}
		for _, row := range rows {
			k, at, _ := strings.Cut(row, "|")
			// SQL prints 2.0, Go's %v 2.
			k = strings.TrimSuffix(k, ".0")
			s := want[k]
			if s == nil {
				s = &sums{}
				want[k] = s
			}
			s.runs++
			s.first, s.last = lo(s.first, at), hi(s.last, at)
			if at > formatTime(sample.From) && at <= formatTime(sample.To) {
				s.sample++
				s.sFirst, s.sLast = lo(s.sFirst, at), hi(s.sLast, at)
			}
			if at > formatTime(basis.From) && at <= formatTime(basis.To) {
				s.basis++
				s.bFirst, s.bLast = lo(s.bFirst, at), hi(s.bLast, at)
			}
		}
		if len(want) < 6 || len(got) != len(want) {
			t.Errorf("%d cells' keys, want %d (of %d runs' totals)", len(got), len(want), len(rows))
		}
		for k, w := range want {
			if g := got[k]; g == nil || *g != *w {
				t.Errorf("%s: got %+v, want %+v", k, g, w)
			}
		}
	}
}
