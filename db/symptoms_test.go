package db

import (
	"path/filepath"
	"slices"
	"strconv"
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

func TestReplaceSymptoms(t *testing.T) {
	d := anStore(t)
	now := anNow // the store's runs are dated from it, not from the clock
	runs, err := d.StoredRuns(t.Context(), RunFilter{Since: now.Add(-5 * 24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	// Finished runs of the last five days: pending and older ones are not.
	var got []string
	for _, r := range runs {
		got = append(got, r.Job+"/"+strconv.FormatInt(r.BuildID, 10)+" "+string(r.Result)+" "+r.Edge.String())
		if r.Result == prowcrawl.ResultPending || r.StartedAt.Before(now.Add(-5*24*time.Hour)) || r.FetchStatus != "complete" {
			t.Errorf("run %+v listed", r)
		}
	}
	for _, want := range []string{
		anMicro.Name + "/5 error 4.14 micro",
		anMinor.Name + "/1 success 4.13->4.14 minor",
		anMinor.Name + "/2 failure 4.13->4.14 minor",
		anMinor.Name + "/4 aborted 4.13->4.14 minor",
		anOld.Name + "/8 failure ",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("stored runs %q lack %q", got, want)
		}
	}
	for _, not := range []string{anMicro.Name + "/6 ", anMicro.Name + "/7 "} {
		if slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, not) }) {
			t.Errorf("stored runs %q hold %q (too old, or pending)", got, not)
		}
	}
	i := slices.IndexFunc(runs, func(r StoredRun) bool { return r.Job == anMinor.Name && r.BuildID == 1 })
	if i < 0 {
		t.Fatal("run 1 not listed")
	}
	if r := runs[i]; r.Path != "logs/"+anMinor.Name+"/1" || r.Bucket != "test-platform-results" || r.JobType != "periodic" {
		t.Errorf("run %+v", r)
	}

	before := queryStrings(t, d.db, `SELECT job || '/' || build_id || ' ' || symptom_id FROM run_symptoms WHERE build_id <> 2 ORDER BY 1`)
	err = d.ReplaceSymptoms(t.Context(), []Reclassified{
		{Job: anMinor.Name, BuildID: 2, Symptoms: []prowcrawl.RunSymptom{{SymptomID: "gone", Hits: 3, File: "build-log.txt", Line: 7, Excerpt: "x", RuleHash: "0123456789abcdef"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := queryStrings(t, d.db, `SELECT symptom_id || ' ' || hits || ' ' || rule_hash FROM run_symptoms WHERE build_id = 2`); !slices.Equal(got, []string{"gone 3 0123456789abcdef"}) {
		t.Errorf("run 2's symptoms: %q", got)
	}
	if after := queryStrings(t, d.db, `SELECT job || '/' || build_id || ' ' || symptom_id FROM run_symptoms WHERE build_id <> 2 ORDER BY 1`); !slices.Equal(after, before) {
		t.Errorf("other runs' symptoms changed:\n%q\n%q", before, after)
	}
	// A run that is not stored fails the whole batch.
	err = d.ReplaceSymptoms(t.Context(), []Reclassified{
		{Job: anMinor.Name, BuildID: 1},
		{Job: anMinor.Name, BuildID: 999, Symptoms: []prowcrawl.RunSymptom{{SymptomID: "etcd", Hits: 1}}},
	})
	if err == nil || !strings.Contains(err.Error(), "no such run") {
		t.Fatalf("err = %v", err)
	}
	if n := queryStrings(t, d.db, `SELECT count(*) FROM run_symptoms WHERE build_id = 1`); n[0] == "0" {
		t.Error("a failed batch still replaced a run's symptoms")
	}
}

// TestRuleHashMigration opens a database made before rule_hash, in which a
// migration numbered below the newest applied one is missing: it is
// applied all the same.
func TestRuleHashMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	d := openAt(t, path)
	// run_symptoms_days and the population views read rule_hash since
	// 0020: a database before 0008 had that index without it, and the
	// views are not this test's.
	if _, err := d.db.ExecContext(t.Context(), `DROP INDEX run_symptoms_days;
		DROP VIEW v_symptom_rates; DROP VIEW v_counted_runs; DROP VIEW v_run_populations;
		ALTER TABLE run_symptoms DROP COLUMN rule_hash; DELETE FROM schema_migrations WHERE version = 8;
		CREATE INDEX run_symptoms_days ON run_symptoms (symptom_id, substr(run_started_at, 1, 10), job, run_release, run_from_release,
			run_upgrade, run_result, run_in_rates, run_started_at, build_id);
		INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'later', '2026-01-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	d.Close()
	// 9999 is newer than this program: refused, as before.
	if _, err := Open(t.Context(), path); err == nil {
		t.Fatal("a database from a newer program was opened")
	}
	raw := openRaw(t, path)
	if _, err := raw.ExecContext(t.Context(), `DELETE FROM schema_migrations WHERE version = 9999`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	need, err := NeedsMigration(t.Context(), path)
	if err != nil || !need {
		t.Fatalf("NeedsMigration = %v, %v; want true", need, err)
	}
	d = openAt(t, path)
	cols := queryStrings(t, d.db, `SELECT name FROM pragma_table_info('run_symptoms') WHERE name = 'rule_hash'`)
	if len(cols) != 1 {
		t.Fatal("rule_hash not added back")
	}
}
