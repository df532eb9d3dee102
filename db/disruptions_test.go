package db

import (
	"math"
	"path/filepath"
	"slices"
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
