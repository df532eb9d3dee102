package db

import (
	"math"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// TestExportRunsPages: runs come in key order across pages, each with its
// own tests and symptoms.
func TestExportRunsPages(t *testing.T) {
	d := openTest(t)
	if err := d.SyncSymptoms(t.Context(), []Symptom{{ID: "s", Title: "s", Source: "builtin"}}); err != nil {
		t.Fatal(err)
	}
	const n = 2*exportPage + 7
	var recs []prowcrawl.Record
	for i := int64(1); i <= n; i++ {
		r := testRecord(i, int(i%3))
		if i%100 == 0 {
			r.Symptoms = []prowcrawl.RunSymptom{{SymptomID: "s", Hits: int(i)}}
		}
		recs = append(recs, r)
	}
	write(t, d, recs)
	var got, tests, symptoms int
	var last int64
	err := d.ExportRuns(t.Context(), func(e ExportRun) error {
		got++
		if e.Run.BuildID <= last {
			t.Fatalf("run %d after %d", e.Run.BuildID, last)
		}
		last = e.Run.BuildID
		if len(e.Tests) != int(e.Run.BuildID%3) {
			t.Errorf("run %d has %d tests, want %d", e.Run.BuildID, len(e.Tests), e.Run.BuildID%3)
		}
		for _, s := range e.Symptoms {
			if s.Hits != int(e.Run.BuildID) {
				t.Errorf("run %d carries the symptom of run %d", e.Run.BuildID, s.Hits)
			}
		}
		tests += len(e.Tests)
		symptoms += len(e.Symptoms)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got != n || tests != count(t, d, "tests") || symptoms != n/100 {
		t.Errorf("exported %d runs, %d tests, %d symptoms; want %d, %d, %d", got, tests, symptoms, n, count(t, d, "tests"), n/100)
	}
}

// TestExportRunFields: a run carries its keys, whether its upgrade began
// (unknown kept apart from false), its symptoms' last evidence and rule
// version, and its disruption summed per backend over its files.
func TestExportRunFields(t *testing.T) {
	d := openTest(t)
	if err := d.SyncSymptoms(t.Context(), []Symptom{{ID: "s", Title: "s", Source: "builtin"}}); err != nil {
		t.Fatal(err)
	}
	began, never := true, false
	a, b, c := testRecord(1, 0), testRecord(2, 0), testRecord(3, 0)
	a.Run.UpgradeStarted, b.Run.UpgradeStarted = &began, &never
	a.Job.Topology, b.Job.Topology, c.Job.Topology = "ha", "ha", "ha"
	last := started.Add(90 * time.Second)
	a.Symptoms = []prowcrawl.RunSymptom{{SymptomID: "s", Hits: 2, At: started, LastAt: last, RuleHash: "abc123"}}
	a.Disruptions = []prowcrawl.RunDisruption{
		{File: "e2e/backend-disruption_1.json", Backend: "kube-api-new-connections", BackendName: "kube-api", Connection: "new", Seconds: 1.5, Source: prowcrawl.DisruptionFromFile},
		{File: "e2e/backend-disruption_2.json", Backend: "kube-api-new-connections", BackendName: "kube-api", Connection: "new", Seconds: 2.25, Source: prowcrawl.DisruptionFromFile},
		{File: "e2e/backend-disruption_1.json", Backend: "oauth-api-reused-connections", BackendName: "oauth-api", Connection: "reused", Seconds: math.NaN(), Source: prowcrawl.DisruptionFromFile},
	}
	write(t, d, []prowcrawl.Record{a, b, c})
	got := map[int64]ExportRun{}
	if err := d.ExportRuns(t.Context(), func(e ExportRun) error { got[e.Run.BuildID] = e; return nil }); err != nil {
		t.Fatal(err)
	}
	edge, variant := prowcrawl.RunKeys(a.Job, a.Run.Release, a.Run.FromRelease, a.Run.Upgrade)
	for id, e := range got {
		if e.Edge != edge.String() || e.Variant != variant.String() || e.Job.Topology != "ha" {
			t.Errorf("run %d: edge %q, variant %q, topology %q; want %q, %q, ha", id, e.Edge, e.Variant, e.Job.Topology, edge, variant)
		}
	}
	if s := got[1].Run.UpgradeStarted; s == nil || !*s {
		t.Errorf("run 1: upgrade started %v, want true", s)
	}
	if s := got[2].Run.UpgradeStarted; s == nil || *s {
		t.Errorf("run 2: upgrade started %v, want false", s)
	}
	if s := got[3].Run.UpgradeStarted; s != nil {
		t.Errorf("run 3: upgrade started %v, want unknown", *s)
	}
	if s := got[1].Symptoms; len(s) != 1 || !s[0].At.Equal(started) || !s[0].LastAt.Equal(last) || s[0].RuleHash != "abc123" {
		t.Errorf("run 1: symptoms %+v", s)
	}
	want := []ExportDisruption{
		{Backend: "kube-api-new-connections", BackendName: "kube-api", Connection: "new", Seconds: 3.75, Files: 2},
		{Backend: "oauth-api-reused-connections", BackendName: "oauth-api", Connection: "reused", Seconds: math.NaN(), Files: 1},
	}
	dis := got[1].Disruptions
	if len(dis) != len(want) {
		t.Fatalf("run 1: disruptions %+v, want %+v", dis, want)
	}
	for i, w := range want {
		g := dis[i]
		sameSeconds := g.Seconds == w.Seconds || math.IsNaN(g.Seconds) && math.IsNaN(w.Seconds)
		if g.Backend != w.Backend || g.BackendName != w.BackendName || g.Connection != w.Connection || g.Files != w.Files || !sameSeconds {
			t.Errorf("run 1: disruption %d is %+v, want %+v", i, g, w)
		}
	}
	if len(got[2].Disruptions) != 0 || len(got[3].Symptoms) != 0 {
		t.Errorf("runs 2 and 3 carry another run's rows: %+v, %+v", got[2].Disruptions, got[3].Symptoms)
	}
}
