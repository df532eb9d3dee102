package db

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// The analysis tests plant runs of their own, so that they do not depend
// on the crawl tests' fixtures.

var anNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func anJob(name, from, to, kind, platform, network string) prowcrawl.Job {
	return prowcrawl.Job{Name: name, Type: "periodic", Release: to, FromRelease: from, Upgrade: kind,
		Platform: platform, Network: network, Arch: "amd64", Topology: "ha"}
}

var (
	anMinor = anJob("ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade", "4.13", "4.14", "minor", "aws", "ovn")
	anMicro = anJob("ci-4.14-e2e-metal-upgrade", "4.14", "4.14", "micro", "metal", "")
	anOld   = prowcrawl.Job{Name: "release-openshift-origin-installer-e2e-aws-upgrade", Type: "periodic", Platform: "aws"}
	// anPre is a presubmit whose runs upgrade 4.14 z-streams: they count
	// in its presubmit scope, never on the 4.14 micro edge.
	anPre = prowcrawl.Job{Name: "pull-ci-openshift-origin-master-e2e-aws-ovn-upgrade", Type: "presubmit", Platform: "aws", Network: "ovn", Arch: "amd64", Topology: "ha"}
)

// anRun is a run of job j on the job's edge (4.14 micro for a presubmit).
func anRun(j prowcrawl.Job, build int64, result string, start time.Time, symptoms ...string) prowcrawl.Record {
	path := fmt.Sprintf("logs/%s/%d", j.Name, build)
	r := prowcrawl.Record{Job: j, Run: prowcrawl.Run{BuildID: build, Bucket: "test-platform-results", Path: path,
		URL: "https://prow.ci.openshift.org/view/gs/test-platform-results/" + path, StartedAt: start, Result: prowcrawl.Result(result),
		Release: j.Release, FromRelease: j.FromRelease, Upgrade: j.Upgrade, FetchStatus: "complete"}}
	if j.Type == prowcrawl.TypePresubmit {
		r.Run.Release, r.Run.FromRelease, r.Run.Upgrade = "4.14", "4.14", "micro"
	}
	for i, s := range symptoms {
		r.Symptoms = append(r.Symptoms, prowcrawl.RunSymptom{SymptomID: s, Hits: i + 1, File: "build-log.txt", Line: 10 * (i + 1),
			Excerpt: "dial tcp 10.0.0.1:2379: connect: connection refused", At: start.Add(time.Minute)})
	}
	return r
}

// anStore is a database with the two symptoms and these runs:
//
//	minor  1 success now-1h  etcd          (sample window)
//	minor  2 failure now-2d  etcd, upgrade (sample window)
//	minor  3 failure now-10d upgrade       (basis window)
//	minor  4 aborted now-1h  etcd          (not finished)
//	micro  5 error   now-3d  etcd          (sample window)
//	micro  6 success now-40d               (before both windows)
//	micro  7 pending now                   (not finished)
//	old    8 failure now-1d  etcd          (no release: job scope only)
//	pre    9 failure now-1h  etcd          (presubmit: its own scope only)
//	minor 10 failure now-2h  etcd          (upgrade never began: left out)
func anStore(t *testing.T) *DB {
	t.Helper()
	d := openTest(t)
	if err := d.SyncSymptoms(t.Context(), []Symptom{
		{ID: "etcd", Title: "etcd refused", Source: "builtin"},
		{ID: "upgrade", Title: "upgrade incomplete", Bug: "https://issues.redhat.com/browse/OCPBUGS-1", Source: "builtin"},
		{ID: "gone", Title: "an old rule", Source: "rules.yaml"},
	}); err != nil {
		t.Fatal(err)
	}
	h, day := time.Hour, 24*time.Hour
	recs := []prowcrawl.Record{
		anRun(anMinor, 1, "success", anNow.Add(-h), "etcd"),
		anRun(anMinor, 2, "failure", anNow.Add(-2*day), "etcd", "upgrade"),
		anRun(anMinor, 3, "failure", anNow.Add(-10*day), "upgrade", "gone"),
		anRun(anMinor, 4, "aborted", anNow.Add(-h), "etcd"),
		anRun(anMicro, 5, "error", anNow.Add(-3*day), "etcd"),
		anRun(anMicro, 6, "success", anNow.Add(-40*day)),
		anRun(anMicro, 7, "pending", anNow),
		anRun(anOld, 8, "failure", anNow.Add(-day), "etcd"),
		anRun(anPre, 9, "failure", anNow.Add(-h), "etcd"),
		anRun(anMinor, 10, "failure", anNow.Add(-2*h), "etcd"),
	}
	never := false
	recs[9].Run.UpgradeStarted = &never
	recs[0].Tests = []prowcrawl.Test{{Suite: "s", Name: "a", Status: "flake"}, {Suite: "s", Name: "b", Status: "pass"}}
	recs[1].Tests = []prowcrawl.Test{{Suite: "s", Name: "a", Status: "fail"}, {Suite: "s", Name: "b", Status: "skip"}}
	recs[3].Tests = []prowcrawl.Test{{Suite: "s", Name: "a", Status: "flake"}} // aborted: does not count
	write(t, d, recs)
	// The rule of "gone" was dropped: its evidence stays, it is not analysed.
	if err := d.SyncSymptoms(t.Context(), []Symptom{
		{ID: "etcd", Title: "etcd refused", Source: "builtin"},
		{ID: "upgrade", Title: "upgrade incomplete", Bug: "https://issues.redhat.com/browse/OCPBUGS-1", Source: "builtin"},
	}); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestAnalysisSchema(t *testing.T) {
	d := anStore(t)
	for table, want := range map[string][]string{
		"symptom_verdicts": {"symptom_id", "scope", "scope_key", "comparison", "sample_label", "basis_label",
			"sample_runs", "sample_hits", "basis_runs", "basis_hits", "sample_rate", "basis_rate", "p_value",
			"verdict", "computed_at", "sample_from", "sample_to", "basis_from", "basis_to", "sample_left_out", "basis_left_out",
			"sample_unclassified", "basis_unclassified"},
		"test_flake_rates": {"scope", "scope_key", "suite", "name", "runs", "failures", "flakes", "flake_rate", "computed_at"},
	} {
		if got := queryStrings(t, d.db, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, table); !slices.Equal(got, want) {
			t.Errorf("%s columns\n got %v\nwant %v", table, got, want)
		}
		if got := queryStrings(t, d.db, `SELECT strict FROM pragma_table_list WHERE name = ?`, table); !slices.Equal(got, []string{"1"}) {
			t.Errorf("%s is not STRICT", table)
		}
	}
	for view, want := range map[string][]string{
		"v_symptom_rates": {"symptom", "scope", "scope_key", "finished_runs", "runs_with", "failed_with", "passed_with",
			"rate", "failed_runs", "share_of_failures", "left_out", "not_classified", "infrastructure"},
		"v_run_symptoms": {"job", "build_id", "url", "result", "started_at", "edge", "platform", "network",
			"symptom_id", "hits", "file", "line", "excerpt", "at", "arch", "variant", "topology", "upgrade_started", "type",
			"last_at", "duration_s", "finished_at", "upgrade_state"},
		"v_regressions": {"symptom_id", "title", "bug", "scope", "scope_key", "comparison", "verdict",
			"sample_label", "sample_runs", "sample_hits", "sample_rate", "basis_label", "basis_runs", "basis_hits",
			"basis_rate", "delta_points", "p_value", "computed_at", "sample_from", "sample_to", "basis_from", "basis_to",
			"sample_left_out", "basis_left_out"},
	} {
		if got := queryStrings(t, d.db, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, view); !slices.Equal(got, want) {
			t.Errorf("%s columns\n got %v\nwant %v", view, got, want)
		}
	}
	// The keys are prowcrawl.RunKeys of the run's own release columns and its job,
	// stored by the writer; a presubmit has none.
	got := queryStrings(t, d.db, `SELECT build_id || ' ' || coalesce(edge, 'NULL') || ' | ' || coalesce(variant, 'NULL') || ' ' ||
	coalesce(upgrade_started, 'NULL') FROM runs ORDER BY build_id`)
	want := []string{"1 4.13->4.14 minor | 4.13->4.14 minor aws ovn amd64 ha NULL", "2 4.13->4.14 minor | 4.13->4.14 minor aws ovn amd64 ha NULL",
		"3 4.13->4.14 minor | 4.13->4.14 minor aws ovn amd64 ha NULL", "4 4.13->4.14 minor | 4.13->4.14 minor aws ovn amd64 ha NULL",
		"5 4.14 micro | 4.14 micro metal ovn amd64 ha NULL", "6 4.14 micro | 4.14 micro metal ovn amd64 ha NULL",
		"7 4.14 micro | 4.14 micro metal ovn amd64 ha NULL", "8 NULL | NULL NULL", "9 NULL | NULL NULL",
		"10 4.13->4.14 minor | 4.13->4.14 minor aws ovn amd64 ha 0"}
	if !slices.Equal(got, want) {
		t.Errorf("runs' keys\n got %q\nwant %q", got, want)
	}
}

func anVerdict(symptom, scope, key, comparison, verdict string) SymptomVerdict {
	return SymptomVerdict{Symptom: symptom, Scope: scope, Key: key, Comparison: comparison,
		SampleLabel: key, BasisLabel: "4.12->4.13 minor", SampleRuns: 20, SampleHits: 10, BasisRuns: 20, BasisHits: 1,
		SampleRate: 0.5, BasisRate: 0.05, P: 0.001, Verdict: verdict, ComputedAt: anNow}
}

func TestAnalysisCounts(t *testing.T) {
	d := anStore(t)
	sample := Window{From: anNow.AddDate(0, 0, -7), To: anNow}
	basis := Window{From: anNow.AddDate(0, 0, -37), To: sample.From}
	c, err := d.AnalysisCounts(t.Context(), CountOptions{Sample: sample, Basis: basis, Tests: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"etcd", "upgrade"}; !slices.Equal(c.Symptoms, want) {
		t.Errorf("active symptoms = %v, want %v", c.Symptoms, want)
	}
	h, day := time.Hour, 24*time.Hour
	// Every run was written by the rules active then: one rule set.
	wantRuns := []RunGroup{
		{Job: anMicro.Name, Release: "4.14", FromRelease: "4.14", Upgrade: "micro", Platform: "metal", Arch: "amd64", Topology: "ha", Type: "periodic", RuleSet: 1,
			Runs: 2, Failed: 1, Sample: 1, First: anNow.Add(-40 * day), Last: anNow.Add(-3 * day)},
		{Job: anMinor.Name, Release: "4.14", FromRelease: "4.13", Upgrade: "minor", Platform: "aws", Network: "ovn", Arch: "amd64", Topology: "ha", Type: "periodic", RuleSet: 1,
			Runs: 3, Failed: 2, Sample: 2, Basis: 1, LeftOut: 1, SampleLeftOut: 1, First: anNow.Add(-10 * day), Last: anNow.Add(-h)},
		{Job: anPre.Name, Release: "4.14", FromRelease: "4.14", Upgrade: "micro", Platform: "aws", Network: "ovn", Arch: "amd64", Topology: "ha", Type: "presubmit", RuleSet: 1,
			Runs: 1, Failed: 1, Sample: 1, First: anNow.Add(-h), Last: anNow.Add(-h)},
		{Job: anOld.Name, Platform: "aws", Type: "periodic", RuleSet: 1, Runs: 1, Failed: 1, Sample: 1, First: anNow.Add(-day), Last: anNow.Add(-day)},
	}
	if !reflect.DeepEqual(c.Runs, wantRuns) {
		t.Errorf("runs\n got %+v\nwant %+v", c.Runs, wantRuns)
	}
	wantHits := []SymptomGroup{
		{Symptom: "etcd", Job: anMicro.Name, Release: "4.14", FromRelease: "4.14", Upgrade: "micro", Runs: 1, Failed: 1, Sample: 1},
		{Symptom: "etcd", Job: anMinor.Name, Release: "4.14", FromRelease: "4.13", Upgrade: "minor", Runs: 2, Failed: 1, Sample: 2},
		{Symptom: "etcd", Job: anPre.Name, Release: "4.14", FromRelease: "4.14", Upgrade: "micro", Runs: 1, Failed: 1, Sample: 1},
		{Symptom: "etcd", Job: anOld.Name, Runs: 1, Failed: 1, Sample: 1},
		{Symptom: "upgrade", Job: anMinor.Name, Release: "4.14", FromRelease: "4.13", Upgrade: "minor", Runs: 2, Failed: 2, Sample: 1, Basis: 1},
	}
	if !reflect.DeepEqual(c.Hits, wantHits) {
		t.Errorf("hits\n got %+v\nwant %+v", c.Hits, wantHits)
	}
	wantTests := []TestGroup{
		{Job: anMinor.Name, Release: "4.14", FromRelease: "4.13", Upgrade: "minor", Suite: "s", Name: "a", Runs: 2, Failures: 1, Flakes: 1},
		{Job: anMinor.Name, Release: "4.14", FromRelease: "4.13", Upgrade: "minor", Suite: "s", Name: "b", Runs: 1},
	}
	if !reflect.DeepEqual(c.Tests, wantTests) {
		t.Errorf("tests\n got %+v\nwant %+v", c.Tests, wantTests)
	}
	newest, err := d.NewestRunStart(t.Context())
	if err != nil || !newest.Equal(anNow) {
		t.Errorf("newest run start = %v, %v; want %v (the pending run)", newest, err, anNow)
	}
	empty := openTest(t)
	if newest, err := empty.NewestRunStart(t.Context()); err != nil || !newest.IsZero() {
		t.Errorf("newest run of an empty database = %v, %v", newest, err)
	}

	// Bounds: the runs of one job, started in the last two days.
	c, err = d.AnalysisCounts(t.Context(), CountOptions{Sample: sample, Basis: basis,
		Bounds: Bounds{Since: anNow.Add(-2*day - time.Minute), Until: anNow, Jobs: []string{anMinor.Name}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Runs) != 1 || c.Runs[0].Runs != 2 || c.Runs[0].LeftOut != 1 || len(c.Hits) != 2 || c.Hits[0].Runs != 2 || c.Hits[1].Runs != 1 || c.Tests != nil {
		t.Errorf("bounded counts: runs %+v hits %+v tests %+v", c.Runs, c.Hits, c.Tests)
	}
	if newest, err := d.NewestRunStartIn(t.Context(), Bounds{Until: anNow, Jobs: []string{anMicro.Name}}); err != nil || !newest.Equal(anNow.Add(-3*day)) {
		t.Errorf("newest run of %s before now = %v, %v", anMicro.Name, newest, err)
	}
}

// TestWeekCounts: the weekly counts are by ISO week of the start, across a
// year end, of counted runs only.
func TestWeekCounts(t *testing.T) {
	d := openTest(t)
	if err := d.SyncSymptoms(t.Context(), []Symptom{{ID: "etcd", Title: "etcd", Source: "builtin"}}); err != nil {
		t.Fatal(err)
	}
	// ISO weeks across a year end: 2025-12-29 (a Monday) starts 2026-W01;
	// 2027-01-03 (a Sunday) ends 2026-W53.
	day := func(s string) time.Time { tm, _ := time.Parse(time.DateOnly, s); return tm.Add(10 * time.Hour) }
	write(t, d, []prowcrawl.Record{
		anRun(anMinor, 1, "failure", day("2025-12-28"), "etcd"),
		anRun(anMinor, 2, "success", day("2025-12-29")),
		anRun(anMinor, 3, "failure", day("2026-01-04"), "etcd"),
		anRun(anMinor, 4, "aborted", day("2026-01-04"), "etcd"),
		anRun(anMicro, 5, "success", day("2027-01-03")),
		anRun(anMinor, 7, "pending", day("2026-01-20"), "etcd"),
		anRun(anMicro, 9, "failure", time.Time{}, "etcd"),
	})
	c, err := d.AnalysisCounts(t.Context(), CountOptions{Weeks: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range c.Weeks {
		got = append(got, fmt.Sprintf("%s %s %s %s %d", w.Symptom, w.Release, w.Week, w.Monday.Format(time.DateOnly), w.Runs))
	}
	want := []string{
		" 4.14 2026-W53 2026-12-28 1",
		" 4.14 2025-W52 2025-12-22 1",
		" 4.14 2026-W01 2025-12-29 2",
		"etcd 4.14 2025-W52 2025-12-22 1",
		"etcd 4.14 2026-W01 2025-12-29 1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("weekly counts\n got %q\nwant %q", got, want)
	}
}

// TestQueryPlans checks that the views and the queries analysts and the
// report run use an index where a scan of a large table would be slow.
func TestQueryPlans(t *testing.T) {
	d := anStore(t)
	for _, c := range []struct {
		query string
		want  []string // in the plan
		not   []string // not in the plan
	}{
		// The evidence on an edge, newest first: the edge's runs in order,
		// each looked up in run_symptoms; of a symptom anywhere, its evidence.
		{`SELECT * FROM v_run_symptoms WHERE symptom_id = 'etcd' AND edge = '4.13->4.14 minor' ORDER BY started_at DESC LIMIT 20`,
			[]string{"runs_edge (edge=?)"}, []string{"SCAN", "TEMP B-TREE"}},
		{`SELECT * FROM v_run_symptoms WHERE symptom_id = 'etcd'`,
			[]string{"(symptom_id=?)"}, []string{"SCAN"}},
		{`SELECT * FROM runs WHERE edge = '4.14 micro' ORDER BY started_at DESC LIMIT 50`,
			[]string{"runs_edge (edge=?)"}, []string{"SCAN runs", "TEMP B-TREE"}},
		// An analyst's WHERE reaches into the view's arms.
		{`SELECT * FROM v_symptom_rates WHERE symptom = 'etcd' AND scope = 'edge' AND scope_key = '4.14 micro'`,
			[]string{"runs_edge (edge=?)", "sqlite_autoindex_symptoms_1 (id=?)"}, nil},
		{`SELECT * FROM v_symptom_rates WHERE scope = 'job' AND scope_key = 'x'`,
			[]string{"SEARCH r USING INDEX sqlite_autoindex_runs_1 (job=?)"}, nil},
		{`SELECT * FROM v_symptom_rates WHERE scope = 'variant' AND scope_key = '4.14 micro metal ovn amd64 ha'`,
			[]string{"runs_key"}, nil},
		{`SELECT * FROM v_scoped_runs WHERE scope = 'edge' AND scope_key = '4.14 micro'`,
			[]string{"runs_edge (edge=?)"}, nil},
		{`SELECT * FROM v_regressions`, []string{"symptom_verdicts_verdict (verdict=?)"}, []string{"SCAN v"}},
		{`SELECT * FROM symptom_verdicts WHERE scope = 'edge' AND scope_key = '4.14 micro'`,
			[]string{"symptom_verdicts_scope (scope=? AND scope_key=?)"}, nil},
		{`SELECT * FROM symptom_verdicts WHERE symptom_id = 'etcd' AND scope = 'variant'`,
			[]string{"sqlite_autoindex_symptom_verdicts_1 (symptom_id=? AND scope=?)"}, nil},
		{`SELECT * FROM test_flake_rates WHERE name = 'a' ORDER BY flake_rate DESC`,
			[]string{"test_flake_rates_name (name=?)"}, nil},
		{`SELECT * FROM test_flake_rates WHERE scope = 'edge' AND scope_key = '4.14 micro' ORDER BY flake_rate DESC LIMIT 20`,
			[]string{"sqlite_autoindex_test_flake_rates_1 (scope=? AND scope_key=?)"}, nil},
	} {
		checkPlan(t, d, c.query, c.want, c.not)
	}
}

// checkPlan fails the test when the plan of query lacks one of want or
// holds one of not.
func checkPlan(t *testing.T, d *DB, query string, want, not []string) {
	t.Helper()
	plan := queryPlan(t, d, query)
	for _, w := range want {
		if !strings.Contains(plan, w) {
			t.Errorf("%s\nplan does not use %s:\n%s", query, w, plan)
		}
	}
	for _, n := range not {
		if strings.Contains(plan, n) {
			t.Errorf("%s\nplan has %s:\n%s", query, n, plan)
		}
	}
}

// queryPlan is the detail column of EXPLAIN QUERY PLAN, one step a line.
func queryPlan(t *testing.T, d *DB, query string) string {
	t.Helper()
	rows, err := d.db.QueryContext(t.Context(), `EXPLAIN QUERY PLAN `+query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var steps []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(steps, "\n")
}
