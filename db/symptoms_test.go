package db

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

func TestSymptomsAndEvidence(t *testing.T) {
	d := openTest(t)
	builtin := []Symptom{
		{ID: "etcd-connection-refused", Title: "etcd refused connections", Source: "builtin"},
		{ID: "upgrade-incomplete", Title: "upgrade never finished", Bug: "https://bugzilla.redhat.com/show_bug.cgi?id=1", Source: "builtin"},
	}
	if err := d.SyncSymptoms(t.Context(), builtin); err != nil {
		t.Fatal(err)
	}
	rec := testRecord(1, 3)
	at := time.Date(2026, 1, 12, 20, 58, 46, 0, time.UTC)
	rec.Symptoms = []prowcrawl.RunSymptom{
		{SymptomID: "etcd-connection-refused", Hits: 12, File: "artifacts/e/pods/kube-apiserver.log", Line: 88,
			Excerpt: "dial tcp 10.0.61.114:2379: connect: connection refused", At: at},
		{SymptomID: "upgrade-incomplete", Hits: 1, Excerpt: "clusterversion history[0].state = Partial"},
	}
	write(t, d, []prowcrawl.Record{rec})
	got := queryStrings(t, d.db, `SELECT symptom_id || ' ' || hits || ' ' || coalesce(file, 'NULL') || ' ' ||
		coalesce(line, 'NULL') || ' ' || coalesce(at, 'NULL') FROM run_symptoms ORDER BY symptom_id`)
	want := []string{
		"etcd-connection-refused 12 artifacts/e/pods/kube-apiserver.log 88 2026-01-12T20:58:46Z",
		"upgrade-incomplete 1 NULL NULL NULL",
	}
	if !slices.Equal(got, want) {
		t.Errorf("run_symptoms\n got %v\nwant %v", got, want)
	}

	// A symptom the rules do not know is refused, and fails the batch.
	bad := testRecord(2, 1)
	bad.Symptoms = []prowcrawl.RunSymptom{{SymptomID: "no-such-symptom", Hits: 1}}
	if err := d.Write(t.Context(), []prowcrawl.Record{bad}, nil); err == nil || !strings.Contains(err.Error(), "FOREIGN KEY") {
		t.Errorf("evidence of an unknown symptom: err = %v, want a foreign key error", err)
	}

	// Rewriting the run without symptoms drops its evidence.
	rec.Symptoms = nil
	write(t, d, []prowcrawl.Record{rec})
	if n := count(t, d, "run_symptoms"); n != 0 {
		t.Errorf("%d run_symptoms rows left after the run was rewritten without symptoms", n)
	}

	// A rules file replaces the set: the dropped symptom stays, inactive.
	user := []Symptom{builtin[0], {ID: "my-symptom", Title: "mine", Source: "rules.yaml"}}
	if err := d.SyncSymptoms(t.Context(), user); err != nil {
		t.Fatal(err)
	}
	all, err := d.Symptoms(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, s := range all {
		states = append(states, s.ID+"="+map[bool]string{true: "active", false: "inactive"}[s.Active]+" "+s.Source)
	}
	wantStates := []string{"etcd-connection-refused=active builtin", "my-symptom=active rules.yaml", "upgrade-incomplete=inactive builtin"}
	if !slices.Equal(states, wantStates) {
		t.Errorf("symptoms\n got %v\nwant %v", states, wantStates)
	}
}
