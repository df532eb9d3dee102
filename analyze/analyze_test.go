package analyze

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/internal/benchdb"
)

// symptoms are the rules a planted crawl ran.
var symptoms = []db.Symptom{
	{ID: "etcd-connection-refused", Title: "etcd refused connections", Source: "builtin"},
	{ID: "upgrade-incomplete", Title: "the upgrade never finished", Bug: "https://issues.redhat.com/browse/OCPBUGS-1", Source: "builtin"},
}

// now is the end of the planted history.
var now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func openStore(t testing.TB) *db.DB {
	t.Helper()
	d, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "prowcrawl.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	if err := d.SyncSymptoms(t.Context(), symptoms); err != nil {
		t.Fatal(err)
	}
	return d
}

// planter writes runs through db.Write, as the crawler does.
type planter struct {
	t     testing.TB
	d     *db.DB
	build int64
	recs  []prowcrawl.Record
}

func newPlanter(t testing.TB, d *db.DB) *planter {
	return &planter{t: t, d: d, build: 1_700_000_000_000_000_000}
}

// run adds one run of job j, on the job's edge, started at start, showing
// the symptoms.
func (p *planter) run(j prowcrawl.Job, result string, start time.Time, symptomIDs ...string) *prowcrawl.Record {
	p.build++
	rec := benchdb.Record(j, p.build, prowcrawl.Result(result), start, symptomIDs...)
	p.recs = append(p.recs, rec)
	return &p.recs[len(p.recs)-1]
}

// runs adds n finished runs of job j, started evenly in (from, to], the
// newest at to; the first hits of them (the newest) show symptom and failed,
// the others passed.
func (p *planter) runs(j prowcrawl.Job, n, hits int, symptom string, from, to time.Time) {
	p.runsWith(j, n, map[string]int{symptom: hits}, from, to)
}

// runsWith is runs with several symptoms: run i (the newest is 0) shows
// every symptom s with i < hits[s], and failed if it shows any.
func (p *planter) runsWith(j prowcrawl.Job, n int, hits map[string]int, from, to time.Time) {
	step := to.Sub(from) / time.Duration(n+1)
	for i := range n {
		var shows []string
		for s, h := range hits {
			if i < h {
				shows = append(shows, s)
			}
		}
		slices.Sort(shows)
		result := "success"
		if len(shows) > 0 {
			result = "failure"
		}
		p.run(j, result, to.Add(-time.Duration(i)*step), shows...)
	}
}

// flush writes the runs added so far, in batches as the crawler does.
func (p *planter) flush() {
	p.t.Helper()
	for batch := range slices.Chunk(p.recs, 500) {
		if err := p.d.Write(p.t.Context(), batch, nil); err != nil {
			p.t.Fatal(err)
		}
	}
	p.recs = nil
}

func analyze(t testing.TB, d *db.DB, opts Options) Summary {
	t.Helper()
	sum, err := Run(t.Context(), d, opts)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// verdictOf returns the one verdict row of symptom in scope key and
// comparison.
func verdictOf(t testing.TB, d *db.DB, symptom, scope, key, comparison string) db.SymptomVerdict {
	t.Helper()
	vs, err := d.Verdicts(t.Context(), db.Filter{Symptom: symptom, Scope: scope, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.Comparison == comparison {
			return v
		}
	}
	t.Fatalf("no %s verdict of %s in %s %q; have %+v", comparison, symptom, scope, key, vs)
	return db.SymptomVerdict{}
}

// checkRow compares a verdict row with the planted counts and verdict.
func checkRow(t *testing.T, v db.SymptomVerdict, s Sample, want, sampleLabel, basisLabel string) {
	t.Helper()
	got := Sample{Runs: v.SampleRuns, Hits: v.SampleHits, BasisRuns: v.BasisRuns, BasisHits: v.BasisHits}
	if got != s || v.Verdict != want || v.SampleLabel != sampleLabel || v.BasisLabel != basisLabel {
		t.Errorf("%s %s %s: %s %+v (%s vs %s), want %s %+v (%s vs %s)", v.Comparison, v.Scope, v.Key,
			v.Verdict, got, v.SampleLabel, v.BasisLabel, want, s, sampleLabel, basisLabel)
	}
	if !sameFloat(v.SampleRate, s.Rate()) || !sameFloat(v.BasisRate, s.BasisRate()) {
		t.Errorf("%s %s: rates %v %v, want %v %v", v.Comparison, v.Key, v.SampleRate, v.BasisRate, s.Rate(), s.BasisRate())
	}
	if _, p := decide(s, DefaultOptions()); !sameFloat(v.P, p) {
		t.Errorf("%s %s: p %v, want %v", v.Comparison, v.Key, v.P, p)
	}
}

func sameFloat(a, b float64) bool {
	return a == b || math.IsNaN(a) && math.IsNaN(b)
}

const symptom = "etcd-connection-refused"

// plantedGroups groups verdictCases by their run counts: the cases of a
// group share one database, each case with a symptom of its own, so that
// the large cases are written once.
func plantedGroups() [][]int {
	byRuns := map[[2]int][]int{}
	var order [][2]int
	for i, c := range verdictCases {
		k := [2]int{c.s.Runs, c.s.BasisRuns}
		if byRuns[k] == nil {
			order = append(order, k)
		}
		byRuns[k] = append(byRuns[k], i)
	}
	var groups [][]int
	for _, k := range order {
		groups = append(groups, byRuns[k])
	}
	return groups
}

// openPlanted opens a database whose symptoms are one per case of group,
// and "never", which no run shows.
func openPlanted(t *testing.T, group []int) (*db.DB, *planter) {
	t.Helper()
	d := openStore(t)
	syms := []db.Symptom{{ID: "never", Title: "never seen", Source: "builtin"}}
	for _, i := range group {
		syms = append(syms, db.Symptom{ID: caseSymptom(i), Title: verdictCases[i].name, Source: "builtin"})
	}
	if err := d.SyncSymptoms(t.Context(), syms); err != nil {
		t.Fatal(err)
	}
	return d, newPlanter(t, d)
}

func caseSymptom(i int) string { return fmt.Sprintf("case-%02d", i) }

// plantedHits is how many sample runs (or basis runs) show each case's
// symptom.
func plantedHits(group []int, basis bool) map[string]int {
	hits := map[string]int{}
	for _, i := range group {
		hits[caseSymptom(i)] = verdictCases[i].s.Hits
		if basis {
			hits[caseSymptom(i)] = verdictCases[i].s.BasisHits
		}
	}
	return hits
}

// TestRunPlantedRelease plants each verdict case on edge 4.13->4.14 (the
// sample) and 4.12->4.13 (the basis), with runs that must not count beside
// them, and expects the verdict in the edge and the variant.
func TestRunPlantedRelease(t *testing.T) {
	sampleJob := benchdb.UpgradeJob("4.13", "4.14", "minor", "aws", "ovn")
	basisJob := benchdb.UpgradeJob("4.12", "4.13", "minor", "aws", "ovn")
	// An old job name without a version, whose runs did not say their
	// release: they count in the job only.
	unknown := prowcrawl.Job{Name: "release-openshift-origin-installer-e2e-aws-upgrade", Type: "periodic", Upgrade: "micro", Platform: "aws"}
	for _, group := range plantedGroups() {
		d, p := openPlanted(t, group)
		runs := verdictCases[group[0]].s
		p.runsWith(sampleJob, runs.Runs, plantedHits(group, false), now.AddDate(0, -3, 0), now)
		p.runsWith(basisJob, runs.BasisRuns, plantedHits(group, true), now.AddDate(0, -6, 0), now.AddDate(0, -3, 0))
		all := slices.Collect(maps.Keys(plantedHits(group, false)))
		for _, result := range []string{"aborted", "pending", "aborted"} {
			p.run(sampleJob, result, now.Add(-time.Hour), all...)
			p.run(basisJob, result, now.AddDate(0, -4, 0), all...)
		}
		p.run(unknown, "failure", now.Add(-time.Hour), all...)
		p.flush()
		analyze(t, d, Options{Alpha: 0.05, MinHits: 3, MinDelta: 5, MinRuns: 10, Persistent: 90,
			SampleDays: 7, BasisDays: 30, Now: now})

		edge, variant := "4.13->4.14 minor", "4.13->4.14 minor aws ovn amd64 ha"
		for _, i := range group {
			c := verdictCases[i]
			t.Run(c.name, func(t *testing.T) {
				v := verdictOf(t, d, caseSymptom(i), db.ScopeEdge, edge, db.CompareRelease)
				checkRow(t, v, c.s, c.want, edge, "4.12->4.13 minor")
				v = verdictOf(t, d, caseSymptom(i), db.ScopeVariant, variant, db.CompareRelease)
				checkRow(t, v, c.s, c.want, variant, "4.12->4.13 minor aws ovn amd64 ha")
			})
		}
		// A symptom no run shows.
		want := VerdictNone
		if runs.Runs < 10 || runs.BasisRuns < 10 {
			want = VerdictInsufficient
		}
		v := verdictOf(t, d, "never", db.ScopeEdge, edge, db.CompareRelease)
		checkRow(t, v, Sample{Runs: runs.Runs, BasisRuns: runs.BasisRuns}, want, edge, "4.12->4.13 minor")
	}
}

// TestRunPlantedWindow plants each verdict case in one job: the sample in
// the last 7 days before now, the basis in the 30 days before those, and
// runs outside both, and expects the verdict in the job, its edge and its
// variant.
func TestRunPlantedWindow(t *testing.T) {
	job := benchdb.UpgradeJob("4.14", "4.14", "micro", "gcp", "")
	mid, start := now.AddDate(0, 0, -7), now.AddDate(0, 0, -37)
	for _, group := range plantedGroups() {
		d, p := openPlanted(t, group)
		runs := verdictCases[group[0]].s
		// The newest sample run starts at now, the newest basis run at mid:
		// the windows are (mid, now] and (start, mid].
		p.runsWith(job, runs.Runs, plantedHits(group, false), mid, now)
		p.runsWith(job, runs.BasisRuns, plantedHits(group, true), start, mid)
		all := slices.Collect(maps.Keys(plantedHits(group, false)))
		p.run(job, "failure", start, all...)                   // just before the basis
		p.run(job, "failure", now.Add(time.Second), all...)    // after now
		p.run(job, "failure", now.AddDate(-1, 0, 0), all...)   // long ago
		p.run(job, "aborted", now.Add(-time.Minute), all...)   // not finished
		p.run(job, "pending", now.Add(-2*time.Minute), all...) // not finished
		p.flush()
		opts := DefaultOptions()
		opts.Now = now
		analyze(t, d, opts)

		for _, i := range group {
			c := verdictCases[i]
			t.Run(c.name, func(t *testing.T) {
				for scope, key := range map[string]string{
					db.ScopeJob: job.Name, db.ScopeEdge: "4.14 micro", db.ScopeVariant: "4.14 micro gcp ovn amd64 ha",
				} {
					v := verdictOf(t, d, caseSymptom(i), scope, key, db.CompareWindow)
					checkRow(t, v, c.s, c.want, "2026-11-23..2026-11-30", "2026-10-24..2026-11-23")
				}
			})
		}
	}
}

// TestRunEdgePairing plants runs on many edges, each with its own number of
// runs, and expects every release comparison to pick the same-shaped edge
// one release earlier (or to say that it has no runs).
func TestRunEdgePairing(t *testing.T) {
	d := openStore(t)
	p := newPlanter(t, d)
	jobs := []struct {
		job  prowcrawl.Job
		runs int
	}{
		{benchdb.UpgradeJob("4.13", "4.14", "minor", "aws", "ovn"), 11},
		{benchdb.UpgradeJob("4.12", "4.13", "minor", "aws", "ovn"), 12},
		{benchdb.UpgradeJob("4.12", "4.13", "minor", "aws", "sdn"), 13},
		{benchdb.UpgradeJob("4.9", "4.10", "minor", "aws", "ovn"), 14},
		{benchdb.UpgradeJob("4.8", "4.9", "minor", "aws", "ovn"), 15},
		{benchdb.UpgradeJob("4.1", "4.2", "minor", "aws", "ovn"), 16}, // a string order would pair 4.10 with it
		{benchdb.UpgradeJob("4.14", "4.14", "micro", "aws", "ovn"), 17},
		{benchdb.UpgradeJob("4.13", "4.13", "micro", "aws", "ovn"), 18},
		{benchdb.UpgradeJob("4.13", "4.13", "micro", "metal", ""), 19},
		{benchdb.UpgradeJob("4.12", "4.12", "micro", "metal", ""), 20},
		{benchdb.UpgradeJob("4.12", "4.14", "multi", "aws", "ovn"), 21},
		{benchdb.UpgradeJob("4.11", "4.13", "multi", "aws", "ovn"), 22},
	}
	for _, j := range jobs {
		p.runs(j.job, j.runs, 1, symptom, now.AddDate(0, -1, 0), now)
	}
	p.flush()
	analyze(t, d, DefaultOptions())

	for _, c := range []struct {
		scope, key, basis string
		runs, basisRuns   int
	}{
		{db.ScopeEdge, "4.13->4.14 minor", "4.12->4.13 minor", 11, 12 + 13},
		{db.ScopeVariant, "4.13->4.14 minor aws ovn amd64 ha", "4.12->4.13 minor aws ovn amd64 ha", 11, 12},
		{db.ScopeVariant, "4.12->4.13 minor aws sdn amd64 ha", "4.11->4.12 minor aws sdn amd64 ha", 13, 0},
		{db.ScopeEdge, "4.9->4.10 minor", "4.8->4.9 minor", 14, 15},
		{db.ScopeEdge, "4.1->4.2 minor", "4.0->4.1 minor", 16, 0},
		{db.ScopeEdge, "4.14 micro", "4.13 micro", 17, 18 + 19},
		{db.ScopeVariant, "4.14 micro aws ovn amd64 ha", "4.13 micro aws ovn amd64 ha", 17, 18},
		{db.ScopeVariant, "4.13 micro metal ovn amd64 ha", "4.12 micro metal ovn amd64 ha", 19, 20},
		{db.ScopeEdge, "4.12->4.14 multi", "4.11->4.13 multi", 21, 22},
		{db.ScopeEdge, "4.11->4.13 multi", "4.10->4.12 multi", 22, 0},
	} {
		v := verdictOf(t, d, symptom, c.scope, c.key, db.CompareRelease)
		if v.SampleLabel != c.key || v.BasisLabel != c.basis || v.SampleRuns != c.runs || v.BasisRuns != c.basisRuns {
			t.Errorf("%s %s: %s (%d runs) against %s (%d runs), want against %s (%d runs)", c.scope, c.key,
				v.SampleLabel, v.SampleRuns, v.BasisLabel, v.BasisRuns, c.basis, c.basisRuns)
		}
		if c.basisRuns == 0 && v.Verdict != VerdictInsufficient {
			t.Errorf("%s %s against an edge without runs: %s, want insufficient", c.scope, c.key, v.Verdict)
		}
	}
	// Jobs have no release comparison.
	vs, err := d.Verdicts(t.Context(), db.Filter{Scope: db.ScopeJob})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.Comparison != db.CompareWindow {
			t.Errorf("job %s has a %s comparison", v.Key, v.Comparison)
		}
	}
}

// TestKeysMatchSchema checks that the keys and counts analyze computes in
// Go are those of the schema's views (runs.edge and runs.variant, filled
// from the same RunKeys, and v_symptom_rates): both count the same runs
// under the same keys, presubmits and runs whose upgrade never began
// included.
func TestKeysMatchSchema(t *testing.T) {
	d := openStore(t)
	p := newPlanter(t, d)
	odd := benchdb.UpgradeJob("4.13", "4.14", "", "", "") // unknown kind, platform and network
	odd.Arch = ""
	for i, j := range []prowcrawl.Job{
		benchdb.UpgradeJob("4.13", "4.14", "minor", "aws", "ovn"), benchdb.UpgradeJob("4.14", "4.14", "micro", "metal", ""),
		benchdb.UpgradeJob("4.12", "4.14", "multi", "azure", "sdn"), odd,
	} {
		p.runs(j, 10+i, 2+i, symptom, now.AddDate(0, 0, -3), now)
	}
	r := p.run(benchdb.UpgradeJob("4.14", "4.14", "micro", "gcp", "ovn"), "success", now, symptom)
	r.Run.FromRelease = "" // a run that did not say where it started
	pre := benchdb.UpgradeJob("4.14", "4.14", "micro", "aws", "ovn")
	pre.Name, pre.Type = "pull-ci-openshift-origin-master-e2e-aws-ovn-upgrade", prowcrawl.TypePresubmit
	p.runs(pre, 5, 2, symptom, now.AddDate(0, 0, -2), now)
	never := false
	r = p.run(benchdb.UpgradeJob("4.13", "4.14", "minor", "aws", "ovn"), "failure", now, symptom)
	r.Run.UpgradeStarted = &never
	p.flush()

	view, err := d.ViewRates(t.Context(), symptom)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compute(t.Context(), d, DefaultOptions(), Query{})
	if err != nil {
		t.Fatal(err)
	}
	line := func(r db.SymptomRate) string {
		return fmt.Sprintf("%s %s %d %d %d %d %d", r.Scope, r.Key, r.FinishedRuns, r.RunsWith, r.FailedWith, r.FailedRuns, r.LeftOut)
	}
	var sqlKeys, goKeys []string
	for _, r := range view {
		sqlKeys = append(sqlKeys, line(r))
	}
	for _, r := range res.Rates {
		if r.Symptom == symptom {
			goKeys = append(goKeys, line(r))
		}
	}
	if !slices.Equal(goKeys, sqlKeys) || len(goKeys) != 5+1+4+5 { // jobs, presubmit, edges, variants
		t.Errorf("keys\n  go %q\n sql %q", goKeys, sqlKeys)
	}
	for _, want := range []string{"edge 4.13->4.14 -", "variant 4.13->4.14 - - ovn - ha", "variant 4.14 micro metal ovn amd64 ha",
		"presubmit " + pre.Name} {
		if !slices.ContainsFunc(goKeys, func(k string) bool { return strings.HasPrefix(k, want+" ") }) {
			t.Errorf("no key %q", want)
		}
	}
	for _, k := range goKeys {
		// 11 runs of the metal job and the gcp run that did not say where
		// it started; not the presubmit's 5.
		if strings.HasPrefix(k, "edge 4.14 micro ") && !strings.HasPrefix(k, "edge 4.14 micro 12 ") {
			t.Errorf("the presubmit counts on the edge: %s", k)
		}
	}
}

func TestRunNowDefaultsToNewestRun(t *testing.T) {
	d := openStore(t)
	p := newPlanter(t, d)
	job := benchdb.UpgradeJob("4.13", "4.14", "minor", "aws", "ovn")
	// A backfill of 2020: analysed as of its newest run, not of today. The
	// newest run still runs: its start is where the history ends.
	end := time.Date(2020, 1, 15, 9, 30, 0, 0, time.UTC)
	p.runs(job, 20, 5, symptom, end.AddDate(0, 0, -30), end.Add(-time.Hour))
	p.run(job, "pending", end)
	p.flush()

	for _, c := range []struct {
		now                     time.Time
		sampleLabel, basisLabel string
		sampleRuns              int
	}{
		{time.Time{}, "2020-01-08..2020-01-15", "2019-12-09..2020-01-08", 5},
		{end.AddDate(0, 0, -7), "2020-01-01..2020-01-08", "2019-12-02..2020-01-01", 5},
		{time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), "2026-11-23..2026-11-30", "2026-10-24..2026-11-23", 0},
	} {
		opts := DefaultOptions()
		opts.Now = c.now
		analyze(t, d, opts)
		vs, err := d.Verdicts(t.Context(), db.Filter{Symptom: symptom, Scope: db.ScopeJob})
		if err != nil {
			t.Fatal(err)
		}
		if c.sampleRuns == 0 {
			if len(vs) != 0 {
				t.Errorf("now %v, no runs in the sample window: got %+v", c.now, vs)
			}
			continue
		}
		if len(vs) != 1 || vs[0].SampleLabel != c.sampleLabel || vs[0].BasisLabel != c.basisLabel ||
			vs[0].SampleRuns != c.sampleRuns {
			t.Errorf("now %v: got %+v, want %s (%d runs) against %s", c.now, vs, c.sampleLabel, c.sampleRuns, c.basisLabel)
		}
	}
}

// rows renders the whole analysis, without computed_at, to compare two.
func rows(t *testing.T, d *db.DB) []string {
	t.Helper()
	vs, err := d.Verdicts(t.Context(), db.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := d.TestFlakeRates(t.Context(), db.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range vs {
		v.ComputedAt = time.Time{}
		out = append(out, fmt.Sprintf("%+v", v))
	}
	for _, f := range fs {
		f.ComputedAt = time.Time{}
		out = append(out, fmt.Sprintf("%+v", f))
	}
	return out
}

func TestRunIsIdempotent(t *testing.T) {
	d := openStore(t)
	p := newPlanter(t, d)
	for _, j := range []prowcrawl.Job{benchdb.UpgradeJob("4.13", "4.14", "minor", "aws", "ovn"), benchdb.UpgradeJob("4.12", "4.13", "minor", "aws", "ovn")} {
		p.runs(j, 30, 4, symptom, now.AddDate(0, 0, -20), now)
		p.runs(j, 12, 12, "upgrade-incomplete", now.AddDate(0, 0, -20), now)
	}
	p.recs[0].Tests = []prowcrawl.Test{{Suite: "openshift-tests", Name: "[sig-network] pods should reach pods", Status: "flake"}}
	p.flush()
	first := analyze(t, d, DefaultOptions())
	before := rows(t, d)
	second := analyze(t, d, DefaultOptions())
	if after := rows(t, d); !slices.Equal(after, before) {
		t.Errorf("second analysis differs\n got %v\nwant %v", after, before)
	}
	first.Duration, second.Duration = 0, 0
	// The first opened the regressions; the second keeps them open.
	if first.Changes != first.Regressions || second.Changes != 0 {
		t.Errorf("changes %d then %d, want %d then 0", first.Changes, second.Changes, first.Regressions)
	}
	first.Changes = 0
	if !reflect.DeepEqual(first, second) || first.Verdicts != len(before)-3 || first.Symptoms != 2 {
		t.Errorf("summaries %+v and %+v, %d rows", first, second, len(before))
	}

	// A symptom whose rule is gone is no longer analysed: its old rows go.
	if err := d.SyncSymptoms(t.Context(), symptoms[:1]); err != nil {
		t.Fatal(err)
	}
	analyze(t, d, DefaultOptions())
	if vs, err := d.Verdicts(t.Context(), db.Filter{Symptom: "upgrade-incomplete"}); err != nil || len(vs) != 0 {
		t.Errorf("verdicts of an inactive symptom: %v, %v", vs, err)
	}
}

func TestRunEmpty(t *testing.T) {
	d, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "empty.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, active := range [][]db.Symptom{nil, symptoms} { // no symptoms, then symptoms but no runs
		if err := d.SyncSymptoms(t.Context(), active); err != nil {
			t.Fatal(err)
		}
		sum, err := Run(t.Context(), d, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if sum.Symptoms != len(active) || sum.Verdicts+sum.Regressions != 0 || len(rows(t, d)) != 0 {
			t.Errorf("empty database: %+v, %v", sum, rows(t, d))
		}
	}
}

func TestRunRejectsOptions(t *testing.T) {
	d := openStore(t)
	if _, err := Run(t.Context(), d, Options{}); !errors.Is(err, ErrOptions) {
		t.Errorf("Run with zero options: %v, want ErrOptions", err)
	}
}

func TestRunFlakeRates(t *testing.T) {
	d := openStore(t)
	p := newPlanter(t, d)
	aws := benchdb.UpgradeJob("4.13", "4.14", "minor", "aws", "ovn")
	gcp := benchdb.UpgradeJob("4.13", "4.14", "minor", "gcp", "ovn")
	const suite, name = "openshift-tests", "[sig-network] pods should reach pods across nodes"
	for i, status := range []string{"pass", "flake", "fail", "flake", "skip", "pass"} {
		r := p.run(aws, "failure", now.Add(-time.Duration(i)*time.Hour))
		r.Tests = []prowcrawl.Test{{Suite: suite, Name: name, Status: status}}
	}
	r := p.run(gcp, "success", now)
	r.Tests = []prowcrawl.Test{{Suite: suite, Name: name, Status: "flake"}}
	r = p.run(gcp, "aborted", now) // not finished: does not count
	r.Tests = []prowcrawl.Test{{Suite: suite, Name: name, Status: "flake"}}
	p.flush()
	analyze(t, d, DefaultOptions())

	got, err := d.TestFlakeRates(t.Context(), db.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, f := range got {
		lines = append(lines, fmt.Sprintf("%s %s: %d runs %d failures %d flakes %.3f", f.Scope, f.Key, f.Runs, f.Failures, f.Flakes, f.FlakeRate))
	}
	want := []string{
		"job " + gcp.Name + ": 1 runs 0 failures 1 flakes 1.000",
		"variant 4.13->4.14 minor gcp ovn amd64 ha: 1 runs 0 failures 1 flakes 1.000",
		"edge 4.13->4.14 minor: 6 runs 1 failures 3 flakes 0.500",
		"job " + aws.Name + ": 5 runs 1 failures 2 flakes 0.400",
		"variant 4.13->4.14 minor aws ovn amd64 ha: 5 runs 1 failures 2 flakes 0.400",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("flake rates\n got %q\nwant %q", lines, want)
	}
}

// TestAggregatedRunsApart: the release analysis aggregator's runs beside
// the ordinary runs of their edge summarise those runs: every edge,
// variant and job count, in Go and in the views, is the ordinary runs'
// alone, and the aggregated job has no key at all.
func TestAggregatedRunsApart(t *testing.T) {
	counts := func(aggregated bool) ([]string, []string) {
		d := openStore(t)
		p := newPlanter(t, d)
		micro := benchdb.UpgradeJob("4.14", "4.14", "micro", "aws", "ovn")
		p.runs(micro, 10, 2, symptom, now.AddDate(0, 0, -3), now)
		if aggregated {
			agg := benchdb.UpgradeJob("4.14", "4.14", "micro", "aws", "ovn")
			agg.Name = "aggregated-aws-ovn-upgrade-4.14-micro-release-openshift-release-analysis-aggregator"
			p.runs(agg, 4, 3, symptom, now.AddDate(0, 0, -3), now)
		}
		p.flush()
		res, err := Compute(t.Context(), d, DefaultOptions(), Query{})
		if err != nil {
			t.Fatal(err)
		}
		view, err := d.ViewRates(t.Context(), symptom)
		if err != nil {
			t.Fatal(err)
		}
		// The pages say how many they left out: the aggregated runs.
		tally, err := (Selection{}).Tally(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 4}[aggregated]; tally.Populations[prowcrawl.AggregatedJob] != want || tally.Populations[prowcrawl.Counted] != 10 {
			t.Errorf("tally %v, want %d aggregated and 10 counted", tally.Populations, want)
		}
		var goRates, sqlRates []string
		for _, r := range res.Rates {
			if r.Symptom == symptom {
				goRates = append(goRates, fmt.Sprintf("%s %s %d %d", r.Scope, r.Key, r.FinishedRuns, r.RunsWith))
			}
		}
		for _, r := range view {
			sqlRates = append(sqlRates, fmt.Sprintf("%s %s %d %d", r.Scope, r.Key, r.FinishedRuns, r.RunsWith))
		}
		return goRates, sqlRates
	}
	alone, aloneSQL := counts(false)
	with, withSQL := counts(true)
	if !slices.Equal(with, alone) || !slices.Equal(withSQL, aloneSQL) || !slices.Equal(with, withSQL) || len(alone) == 0 {
		t.Errorf("rates with the aggregated runs\n  go %q\n sql %q\nwant the ordinary runs' alone %q", with, withSQL, alone)
	}
}

// TestInfrastructureRunsApart: runs that failed for CI's infrastructure
// (Sippy's N and n), some of them showing the symptom, beside the ordinary
// runs of their job: every rate, in Go and in the view, and every verdict
// side is the ordinary runs' alone; the infrastructure runs are the rates'
// left-out runs, said to be infrastructure, and the run tally puts each
// run in one population.
func TestInfrastructureRunsApart(t *testing.T) {
	type numbers struct {
		rates, view, verdicts []string
		leftOut, infra        int
		tally                 map[prowcrawl.Population]int
	}
	counts := func(infra bool) numbers {
		d := openStore(t)
		p := newPlanter(t, d)
		minor := benchdb.UpgradeJob("4.14", "4.13", "minor", "aws", "ovn")
		basis := benchdb.UpgradeJob("4.13", "4.12", "minor", "aws", "ovn")
		p.runs(minor, 12, 5, symptom, now.AddDate(0, 0, -3), now)
		p.runs(basis, 12, 0, symptom, now.AddDate(0, 0, -3), now)
		began := true
		if infra {
			for i, o := range []prowcrawl.OverallResult{prowcrawl.OverallInfraFailure, prowcrawl.OverallInternalInfra, prowcrawl.OverallInternalInfra} {
				r := p.run(minor, "failure", now.Add(-time.Duration(i)*time.Hour), symptom)
				r.Run.Overall, r.Run.UpgradeStarted = o, &began
			}
			r := p.run(basis, "error", now) // a Prow error
			r.Run.Overall = prowcrawl.OverallInternalInfra
		}
		p.flush()
		res, err := Compute(t.Context(), d, DefaultOptions(), Query{})
		if err != nil {
			t.Fatal(err)
		}
		view, err := d.ViewRates(t.Context(), symptom)
		if err != nil {
			t.Fatal(err)
		}
		var n numbers
		for _, r := range res.Rates {
			if r.Symptom == symptom {
				n.rates = append(n.rates, fmt.Sprintf("%s %s %d %d %d", r.Scope, r.Key, r.FinishedRuns, r.RunsWith, r.FailedRuns))
				if r.Scope == db.ScopeEdge {
					n.leftOut += r.LeftOut
					n.infra += r.Infra
				}
			}
		}
		for _, r := range view {
			n.view = append(n.view, fmt.Sprintf("%s %s %d %d %d", r.Scope, r.Key, r.FinishedRuns, r.RunsWith, r.FailedRuns))
			if r.Scope == db.ScopeEdge && r.Infra > r.LeftOut {
				t.Errorf("view %s: %d infrastructure runs of %d left out", r.Key, r.Infra, r.LeftOut)
			}
		}
		for _, v := range res.Verdicts {
			if v.Symptom == symptom {
				n.verdicts = append(n.verdicts, fmt.Sprintf("%s %s %d/%d %d/%d %s", v.Scope, v.Key, v.SampleHits, v.SampleRuns, v.BasisHits, v.BasisRuns, v.Verdict))
			}
		}
		tally, err := (Selection{}).Tally(t.Context(), d)
		if err != nil {
			t.Fatal(err)
		}
		n.tally = tally.Populations
		return n
	}
	alone, with := counts(false), counts(true)
	if len(alone.rates) == 0 || !slices.Equal(with.rates, alone.rates) || !slices.Equal(with.view, alone.view) || !slices.Equal(with.rates, with.view) {
		t.Errorf("rates with infrastructure runs\n  go %q\n sql %q\nwant the ordinary runs' alone %q", with.rates, with.view, alone.rates)
	}
	if len(alone.verdicts) == 0 || !slices.Equal(with.verdicts, alone.verdicts) {
		t.Errorf("verdicts with infrastructure runs\n %q\nwant %q", with.verdicts, alone.verdicts)
	}
	// The 4.13->4.14 edge left out its 3; the 4.12->4.13 edge its Prow error.
	if with.leftOut != 4 || with.infra != 4 || alone.leftOut != 0 {
		t.Errorf("edges left out %d (%d infrastructure), want 4 (4); alone %d", with.leftOut, with.infra, alone.leftOut)
	}
	if got := with.tally[prowcrawl.Infrastructure]; got != 4 || with.tally[prowcrawl.Counted] != 24 || alone.tally[prowcrawl.Infrastructure] != 0 {
		t.Errorf("tally %v, want 4 infrastructure and 24 counted", with.tally)
	}
	if got := prowcrawl.LeftOutWhy(4, 4); !strings.Contains(got, "infrastructure") {
		t.Errorf("why %q", got)
	}
}

// TestStackIsAVariant: an IPv6 job and an IPv4 job of one edge and
// platform share the edge's rate but are two variants, keyed the same in
// Go and in the view; the IPv4 variant's key says no stack.
func TestStackIsAVariant(t *testing.T) {
	d := openStore(t)
	p := newPlanter(t, d)
	v4 := prowcrawl.JobFromName("periodic-ci-openshift-release-master-nightly-4.16-upgrade-from-stable-4.15-e2e-metal-ipi-upgrade-ovn", false)
	v6 := prowcrawl.JobFromName("periodic-ci-openshift-release-master-nightly-4.16-upgrade-from-stable-4.15-e2e-metal-ipi-upgrade-ovn-ipv6", false)
	if v4.Stack != "ipv4" || v6.Stack != "ipv6" {
		t.Fatalf("stacks %q %q", v4.Stack, v6.Stack)
	}
	p.runs(v4, 10, 1, symptom, now.AddDate(0, 0, -3), now)
	p.runs(v6, 8, 4, symptom, now.AddDate(0, 0, -3), now)
	p.flush()
	res, err := Compute(t.Context(), d, DefaultOptions(), Query{})
	if err != nil {
		t.Fatal(err)
	}
	view, err := d.ViewRates(t.Context(), symptom)
	if err != nil {
		t.Fatal(err)
	}
	var goRates, sqlRates []string
	for _, r := range res.Rates {
		if r.Symptom == symptom && r.Scope != "job" {
			goRates = append(goRates, fmt.Sprintf("%s %s %d %d", r.Scope, r.Key, r.FinishedRuns, r.RunsWith))
		}
	}
	for _, r := range view {
		if r.Scope != "job" {
			sqlRates = append(sqlRates, fmt.Sprintf("%s %s %d %d", r.Scope, r.Key, r.FinishedRuns, r.RunsWith))
		}
	}
	slices.Sort(goRates)
	slices.Sort(sqlRates)
	want := []string{
		"edge 4.15->4.16 minor 18 5",
		"variant 4.15->4.16 minor metal ovn amd64 ha 10 1",
		"variant 4.15->4.16 minor metal ovn amd64 ha ipv6 8 4",
	}
	if !slices.Equal(goRates, want) || !slices.Equal(sqlRates, want) {
		t.Errorf("rates\n  go %q\n sql %q\nwant %q", goRates, sqlRates, want)
	}
}

// TestStoredVerdictsOfMatchedRules: an analysis stores the verdicts of the
// built-in symptoms, matched or not, and of a file's rules that matched a
// counted run; a file's rule that matched nothing stores none (a report
// computes it live), so that thousands of such rules cost no rows.
func TestStoredVerdictsOfMatchedRules(t *testing.T) {
	d := openStore(t)
	user := append(slices.Clone(symptoms),
		db.Symptom{ID: "mco-degraded", Title: "MCO degraded", Source: "rules.yaml"},
		db.Symptom{ID: "never-seen", Title: "never seen", Source: "rules.yaml"})
	if err := d.SyncSymptoms(t.Context(), user); err != nil {
		t.Fatal(err)
	}
	p := newPlanter(t, d)
	j := benchdb.UpgradeJob("4.13", "4.14", "minor", "aws", "ovn")
	p.runsWith(j, 12, map[string]int{symptom: 3, "mco-degraded": 2}, now.AddDate(0, 0, -5), now)
	p.flush()
	analyze(t, d, DefaultOptions())
	stored, err := d.Verdicts(t.Context(), db.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, v := range stored {
		per[v.Symptom]++
	}
	if per[symptom] == 0 || per["upgrade-incomplete"] == 0 || per["mco-degraded"] == 0 || per["never-seen"] != 0 {
		t.Errorf("stored verdicts per symptom %v: want the built-ins and mco-degraded, not never-seen", per)
	}
	res, err := Compute(t.Context(), d, DefaultOptions(), Query{})
	if err != nil {
		t.Fatal(err)
	}
	live := 0
	for _, v := range res.Verdicts {
		if v.Symptom == "never-seen" {
			live++
		}
	}
	if live == 0 {
		t.Error("a report asked for never-seen gets no verdict")
	}
}
