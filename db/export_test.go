package db

import "testing"

// TestExportRunsPages: runs come in key order across pages, each with its
// own tests and symptoms.
func TestExportRunsPages(t *testing.T) {
	d := openTest(t)
	if err := d.SyncSymptoms(t.Context(), []Symptom{{ID: "s", Title: "s", Source: "builtin"}}); err != nil {
		t.Fatal(err)
	}
	const n = 2*exportPage + 7
	var recs []Record
	for i := int64(1); i <= n; i++ {
		r := testRecord(i, int(i%3))
		if i%100 == 0 {
			r.Symptoms = []RunSymptom{{SymptomID: "s", Hits: int(i)}}
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
