package db_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/crawler"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/mirror"
)

// demoDB returns a copy, opened, of a database of the sample bucket crawled
// and analyzed as 'make demo' does, and its path. The crawl is made once for
// every test that asks; each gets its own copy to change.
func demoDB(t *testing.T) (*db.DB, string) {
	t.Helper()
	demo.once.Do(func() { demo.path, demo.err = crawlDemo() })
	if demo.err != nil {
		t.Fatal(demo.err)
	}
	b, err := os.ReadFile(demo.path)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "prowcrawl.db")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := db.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store, path
}

var demo struct {
	once      sync.Once
	dir, path string
	err       error
}

// crawlDemo crawls the sample bucket into a new database in a directory of
// its own, analyzes it and closes it: the file alone is the database.
func crawlDemo() (string, error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "prowcrawl-db-demo-")
	if err != nil {
		return "", err
	}
	demo.dir = dir
	path := filepath.Join(dir, "prowcrawl.db")
	store, err := db.Open(ctx, path)
	if err != nil {
		return "", err
	}
	src, err := mirror.New(filepath.Join("..", "testdata", "bucket"))
	if err != nil {
		return "", errors.Join(err, store.Close())
	}
	rules, err := classify.NewEngine(classify.Builtin())
	if err != nil {
		return "", errors.Join(err, store.Close())
	}
	cfg := crawler.Config{Jobs: []*regexp.Regexp{regexp.MustCompile("upgrade")}, Presubmits: true, Rules: rules,
		Since: time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := crawler.New(src, store, cfg).Run(ctx); err != nil {
		return "", errors.Join(fmt.Errorf("crawl: %w", err), store.Close())
	}
	if _, err := analyze.Run(ctx, store, analyze.DefaultOptions()); err != nil {
		return "", errors.Join(err, store.Close())
	}
	return path, store.Close()
}

func TestMain(m *testing.M) {
	code := m.Run()
	if demo.dir != "" {
		os.RemoveAll(demo.dir)
	}
	os.Exit(code)
}

// recipeRE finds a recipe in the documentation: its name, then its SQL.
var recipeRE = regexp.MustCompile("(?s)<!-- recipe: ([a-z0-9-]+) -->\\s*```sql\\n(.*?)```\\s*<!-- /recipe -->")

// recipes reads the analysts' recipes from the documents that hold them:
// README.md and every docs/*.md. A recipe in two must read the same.
func recipes(t *testing.T) map[string]string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, doc := range append([]string{filepath.Join("..", "README.md")}, docs...) {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range recipeRE.FindAllStringSubmatch(string(b), -1) {
			name, sql := m[1], strings.TrimSpace(m[2])
			if prev, ok := out[name]; ok && prev != sql {
				t.Errorf("recipe %s differs between the documents:\n%s\n---\n%s", name, prev, sql)
			}
			out[name] = sql
		}
	}
	return out
}

// rows runs query and returns its rows, each column as text.
func rows(t *testing.T, conn *sql.DB, query string) ([]string, []map[string]string) {
	t.Helper()
	rs, err := conn.QueryContext(t.Context(), query)
	if err != nil {
		t.Fatalf("%v\n%s", err, query)
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for rs.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := map[string]string{}
		for i, c := range cols {
			row[c] = vals[i].String
		}
		out = append(out, row)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return cols, out
}

// plan is EXPLAIN QUERY PLAN of query, one step a line.
func plan(t *testing.T, conn *sql.DB, query string) []string {
	t.Helper()
	_, steps := rows(t, conn, "EXPLAIN QUERY PLAN "+query)
	var out []string
	for _, s := range steps {
		out = append(out, s["detail"])
	}
	return out
}

// sampleManifest is the sample bucket's answer key, as the generator wrote
// it: what every run holds.
type sampleManifest struct {
	Bucket string `json:"bucket"`
	Jobs   []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"jobs"`
	Runs []struct {
		Path         string  `json:"path"`
		Job          string  `json:"job"`
		Type         string  `json:"type"`
		BuildID      string  `json:"build_id"`
		Result       string  `json:"result"`
		ToVersion    *string `json:"to_version"`
		UpgradeState *string `json:"upgrade_state"`
		UpgradeBegan *bool   `json:"upgrade_began"`
		Symptoms     []string
		FlakyTests   []struct{ Suite, Name string } `json:"flaky_tests"`
	} `json:"runs"`
}

func readManifest(t *testing.T) sampleManifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "bucket", "MANIFEST.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m sampleManifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// finished is a run result that rates count.
func finished(result string) bool {
	return result == "success" || result == "failure" || result == "error"
}

// TestRecipes runs every analysts' recipe of the documentation against the
// demo's database and checks its answer against the same question answered
// in Go: the analysis (analyze.Compute, the report's source) or the sample
// bucket's answer key; and that each reads through indexes.
func TestRecipes(t *testing.T) {
	store, path := demoDB(t)
	conn, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	all := recipes(t)
	m := readManifest(t)
	ctx := t.Context()

	// The regressions of the release comparison, as the report reads them.
	verdicts, err := store.Verdicts(ctx, db.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var regressions []string
	for _, v := range verdicts {
		if v.Verdict == analyze.VerdictRegression {
			regressions = append(regressions, v.Symptom+" "+v.Scope+" "+v.Key+" "+v.Comparison)
		}
	}
	slices.Sort(regressions)
	res, err := analyze.Compute(ctx, store, analyze.DefaultOptions(), analyze.Query{})
	if err != nil {
		t.Fatal(err)
	}
	// edgeOf is a manifest run's edge, from the one definition of the keys.
	edgeOf := func(job string) string {
		j := prowcrawl.JobFromName(job, false)
		e, _ := prowcrawl.RunKeys(j, j.Release, j.FromRelease, j.Upgrade)
		return e.String()
	}
	crawled := regexp.MustCompile("upgrade")

	checks := map[string]struct {
		check func(t *testing.T, cols []string, rs []map[string]string)
		// covering allows a scan of a covering index of run_symptoms:
		// the recipe counts every match.
		covering bool
	}{
		"regressions-this-week": {check: func(t *testing.T, _ []string, rs []map[string]string) {
			var got []string
			for _, r := range rs {
				got = append(got, r["symptom_id"]+" "+r["scope"]+" "+r["scope_key"]+" "+r["comparison"])
			}
			slices.Sort(got)
			if !slices.Equal(got, regressions) {
				t.Errorf("regressions %q, want those the report shows: %q", got, regressions)
			}
			if !slices.Contains(got, "pod-network-cross-node edge 4.13->4.14 minor release") {
				t.Errorf("the planted regression is missing: %q", got)
			}
		}},
		"runs-with-symptom": {check: func(t *testing.T, _ []string, rs []map[string]string) {
			var want []string
			for _, r := range m.Runs {
				// The counted runs: not a run whose upgrade never began.
				if r.Type != "presubmit" && edgeOf(r.Job) == "4.13->4.14 minor" && slices.Contains(r.Symptoms, "pod-network-cross-node") &&
					(r.UpgradeBegan == nil || *r.UpgradeBegan) {
					want = append(want, r.BuildID+" "+r.Result)
				}
			}
			var got []string
			for _, r := range rs {
				id := r["url"][strings.LastIndex(r["url"], "/")+1:]
				got = append(got, id+" "+r["result"])
				if r["excerpt"] == "" || r["file"] == "" {
					t.Errorf("row without evidence: %v", r)
				}
			}
			slices.Sort(want)
			if g := slices.Sorted(slices.Values(got)); !slices.Equal(g, want) || len(want) < 6 {
				t.Errorf("runs %q, want the answer key's %q", g, want)
			}
			if len(rs) > 1 && rs[0]["started_at"] < rs[len(rs)-1]["started_at"] {
				t.Error("not newest first")
			}
		}},
		"flakiest-tests": {check: func(t *testing.T, _ []string, rs []map[string]string) {
			if len(rs) == 0 {
				t.Fatal("no flaky test; the sample bucket has some")
			}
			for _, r := range rs {
				want := 0
				for _, mr := range m.Runs {
					if mr.Type == "presubmit" || !finished(mr.Result) || edgeOf(mr.Job) != r["edge"] {
						continue
					}
					for _, f := range mr.FlakyTests {
						if f.Name == r["name"] {
							want++
							break
						}
					}
				}
				if fmt.Sprint(want) != r["flakes"] {
					t.Errorf("%s %s: %s flakes, the answer key has %d", r["edge"], r["name"], r["flakes"], want)
				}
			}
		}},
		"symptom-rates-per-edge": {covering: true, check: func(t *testing.T, _ []string, rs []map[string]string) {
			var want, got []string
			for _, r := range res.Rates {
				if r.Scope == db.ScopeEdge && r.RunsWith > 0 {
					want = append(want, fmt.Sprintf("%s %s %d/%d %s", r.Symptom, r.Key, r.RunsWith, r.FinishedRuns,
						strconv.FormatFloat(math.Round(1000*r.Rate)/10, 'f', -1, 64)))
				}
			}
			for _, r := range rs {
				got = append(got, r["symptom"]+" "+r["edge"]+" "+r["runs"]+" "+r["pct"])
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("rates\n got %q\nwant %q (the analysis)", got, want)
			}
		}},
		"runs-per-job": {check: func(t *testing.T, _ []string, rs []map[string]string) {
			want := map[string]int{}
			for _, r := range m.Runs {
				if crawled.MatchString(r.Job) {
					want[r.Job+" "+r.Result]++
				}
			}
			got := map[string]int{}
			for _, r := range rs {
				var n int
				fmt.Sscan(r["runs"], &n)
				got[r["job"]+" "+r["result"]] = n
			}
			if !maps.Equal(got, want) {
				t.Errorf("runs per job\n got %v\nwant %v", got, want)
			}
		}},
		"failure-rate-14-days": {check: func(t *testing.T, _ []string, rs []map[string]string) {
			counts, err := store.AnalysisCounts(ctx, db.CountOptions{Bounds: db.Bounds{Since: time.Now().AddDate(0, 0, -14)}})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string][2]int{}
			for _, g := range counts.Runs {
				j := g.JobRow()
				e, _ := prowcrawl.RunKeys(j, g.Release, g.FromRelease, g.Upgrade)
				if e.String() == "" || g.Runs == 0 {
					continue
				}
				k := e.String() + " " + j.Platform + " " + j.Network
				w := want[k]
				want[k] = [2]int{w[0] + g.Runs, w[1] + g.Failed}
			}
			got := map[string][2]int{}
			for _, r := range rs {
				var runs, failed int
				fmt.Sscan(r["runs"], &runs)
				fmt.Sscan(r["failed"], &failed)
				got[r["edge"]+" "+r["platform"]+" "+r["network"]] = [2]int{runs, failed}
			}
			if !maps.Equal(got, want) {
				t.Errorf("failure rates of the last 14 days\n got %v\nwant %v (the analysis's counts)", got, want)
			}
		}},
		"upgrades-not-completed": {check: func(t *testing.T, _ []string, rs []map[string]string) {
			var want, got []string
			for _, r := range m.Runs {
				if crawled.MatchString(r.Job) && r.UpgradeState != nil && *r.UpgradeState == "Partial" {
					want = append(want, r.BuildID+" "+*r.ToVersion)
				}
			}
			for _, r := range rs {
				got = append(got, r["url"][strings.LastIndex(r["url"], "/")+1:]+" "+r["to_version"])
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) || len(want) == 0 {
				t.Errorf("partial upgrades %q, want the answer key's %q", got, want)
			}
		}},
		"upgrades-never-began": {check: func(t *testing.T, _ []string, rs []map[string]string) {
			var want, got []string
			for _, r := range m.Runs {
				if crawled.MatchString(r.Job) && r.UpgradeBegan != nil && !*r.UpgradeBegan {
					want = append(want, r.Job+" "+r.BuildID)
				}
			}
			for _, r := range rs {
				got = append(got, r["job"]+" "+r["build_id"])
			}
			if !slices.Equal(got, want) || len(want) == 0 {
				t.Errorf("runs whose upgrade never began %q, want the answer key's %q", got, want)
			}
		}},
		"disruption-per-edge": {check: func(t *testing.T, _ []string, rs []map[string]string) {
			got := map[string]string{}
			for _, r := range rs {
				got[r["backend"]] = r["runs"] + " " + r["disrupted_runs"] + " " + r["worst_s"]
			}
			// The sample plants pod-to-pod disruption in 3 of the edge's
			// 14 counted runs (the one whose upgrade never began is not
			// one), at most 6 s; the others record "0s".
			if want := "14 3 7.0"; got["pod-to-pod-new-connections"] != want {
				t.Errorf("pod-to-pod-new-connections: %q, want %q (runs, disrupted runs, worst)", got["pod-to-pod-new-connections"], want)
			}
			if len(rs) == 0 || rs[0]["worst_s"] < rs[len(rs)-1]["worst_s"] {
				t.Errorf("rows %v: want the worst first", rs)
			}
		}},
	}
	// A table that is read whole although an index would narrow it.
	fullScan := regexp.MustCompile(`^SCAN (tests|run_symptoms|rs|symptom_verdicts|v|test_flake_rates)$`)
	anyScan := regexp.MustCompile(`^SCAN (tests|run_symptoms|rs|symptom_verdicts|v|test_flake_rates)\b`)
	for name, c := range checks {
		t.Run(name, func(t *testing.T) {
			query, ok := all[name]
			if !ok {
				t.Fatalf("recipe %s is not in the documentation (<!-- recipe: %s --> ... <!-- /recipe -->)", name, name)
			}
			cols, rs := rows(t, conn, query)
			c.check(t, cols, rs)
			steps := plan(t, conn, query)
			t.Logf("plan of %s:\n  %s", name, strings.Join(steps, "\n  "))
			for _, s := range steps {
				if fullScan.MatchString(s) || !c.covering && anyScan.MatchString(s) {
					t.Errorf("%s: %q reads a table whole where an index would do", name, s)
				}
			}
		})
	}
	for name := range all {
		if _, ok := checks[name]; !ok {
			t.Errorf("recipe %s has no test", name)
		}
	}
}

func TestJobNames(t *testing.T) {
	store, _ := demoDB(t)
	names, err := store.JobNames(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 9 || !slices.IsSorted(names) || !slices.Contains(names, "release-openshift-origin-installer-e2e-aws-upgrade") {
		t.Errorf("job names %q, want the 9 upgrade jobs of the sample, sorted", names)
	}
}

// TestRecipePlans explains every analysts' recipe of the documentation on a
// newly migrated database, as an analyst's sqlite3 plans it (no statistics),
// and fails when a plan reads a large table whole: a SCAN of runs, tests or
// run_symptoms (or of the analysis tables) that no index serves. A scan of a
// covering index is allowed only to the recipes that count every run of
// every scope key they return. The plans are printed with -v, in the short
// form docs/DATABASE.md shows.
func TestRecipePlans(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plans.db")
	store, err := db.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	conn, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// The recipes that count every run of every key they return, for which
	// reading a covering index whole is the least there is to read.
	// A partial index holds only the rows its recipe answers for: reading
	// it whole reads no more.
	countsAll := map[string]bool{"symptom-rates-per-edge": true, "runs-per-job": true, "failure-rate-14-days": true,
		"upgrades-never-began": true, "upgrades-not-completed": true}
	// The large tables and the aliases the schema's views give them.
	const large = `(runs|r|tests|run_symptoms|rs|symptom_verdicts|v|test_flake_rates|f)`
	tableScan := regexp.MustCompile(`^SCAN ` + large + `$`)
	indexScan := regexp.MustCompile(`^SCAN ` + large + ` USING (COVERING )?INDEX `)
	all := recipes(t)
	if len(all) == 0 {
		t.Fatal("no recipe found in the documentation")
	}
	names := slices.Sorted(maps.Keys(all))
	for _, name := range names {
		steps := plan(t, conn, all[name])
		t.Logf("plan of %s:\n  %s", name, strings.Join(steps, "\n  "))
		for _, s := range steps {
			switch {
			case tableScan.MatchString(s):
				t.Errorf("%s: %q reads a table whole, without an index", name, s)
			case indexScan.MatchString(s) && !countsAll[name]:
				t.Errorf("%s: %q reads an index whole where a search would do", name, s)
			}
		}
	}
}

// TestPopulations: in the sample bucket a presubmit and a downgrade job
// upgrade 4.14 z-streams as the periodic 4.14 micro jobs do, with a symptom
// those never show, and a 4.13->4.14 run's upgrade never began. The edge
// verdicts equal those computed from the periodic upgrade runs alone; the
// downgrade has its own edge, the presubmit only its own scope; the run
// that never began is left out, and counted as such. A single-node run
// with a pod-address timeout has no pod-network-cross-node.
func TestPopulations(t *testing.T) {
	store, path := demoDB(t)
	ctx := t.Context()
	m := readManifest(t)
	const downgrade = "periodic-ci-openshift-release-master-ci-4.14-e2e-aws-ovn-upgrade-out-of-change"
	var periodic []string
	for _, j := range m.Jobs {
		if j.Type == "periodic" && j.Name != downgrade && strings.Contains(j.Name, "upgrade") {
			periodic = append(periodic, j.Name)
		}
	}
	all, err := analyze.Compute(ctx, store, analyze.DefaultOptions(), analyze.Query{})
	if err != nil {
		t.Fatal(err)
	}
	alone, err := analyze.Compute(ctx, store, analyze.DefaultOptions(), analyze.Query{Bounds: db.Bounds{Jobs: periodic}})
	if err != nil {
		t.Fatal(err)
	}
	edges := func(vs []db.SymptomVerdict) []string {
		var out []string
		for _, v := range vs {
			if v.Scope == db.ScopeEdge && v.Comparison == db.CompareRelease && !strings.Contains(v.Key, "micro-downgrade") {
				out = append(out, fmt.Sprintf("%s %s %d/%d %d/%d %s", v.Symptom, v.Key, v.SampleHits, v.SampleRuns, v.BasisHits, v.BasisRuns, v.Verdict))
			}
		}
		return out
	}
	if got, want := edges(all.Verdicts), edges(alone.Verdicts); !slices.Equal(got, want) || len(want) == 0 {
		t.Errorf("edge verdicts\n got %q\nwant %q (the periodic runs alone)", got, want)
	}
	keys := map[string]string{}
	for _, v := range all.Verdicts {
		if v.Symptom == "pod-network-cross-node" && v.Comparison == db.CompareRelease && v.Scope == db.ScopeEdge {
			keys[v.Key] = fmt.Sprintf("%d/%d left out %d %s", v.SampleHits, v.SampleRuns, v.SampleLeftOut, v.Verdict)
		}
	}
	// The single-node job's five runs on 4.14 micro are out of the rule's
	// reach: 10 counted runs, not 15, and no verdict of the single-node
	// variant.
	for _, v := range all.Verdicts {
		if v.Symptom == "pod-network-cross-node" && v.Scope == db.ScopeVariant && strings.HasSuffix(v.Key, " single") {
			t.Errorf("a verdict of pod-network-cross-node on the single-node variant %q: %+v", v.Key, v)
		}
	}
	for key, want := range map[string]string{
		"4.14 micro":           "0/10 left out 0 none",
		"4.14 micro-downgrade": "5/6 left out 0 insufficient",
		"4.13->4.14 minor":     "6/14 left out 1 regression",
	} {
		if keys[key] != want {
			t.Errorf("pod-network-cross-node on %s: %q, want %q", key, keys[key], want)
		}
	}
	presubmit := false
	for _, r := range all.Rates {
		if r.Scope == db.ScopePresubmit && r.Key == "pull-ci-openshift-ovn-kubernetes-master-e2e-aws-ovn-upgrade" && r.Symptom == "pod-network-cross-node" {
			presubmit = r.RunsWith == 6 && r.FinishedRuns == 6
		}
	}
	if !presubmit {
		t.Error("the presubmit's own scope does not count its 6 runs with pod-network-cross-node")
	}
	conn, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Two of the five single-node runs hold the pod-address timeouts the
	// HA runs of the symptom hold (the answer key lists no symptom there).
	_, single := rows(t, conn, `SELECT r.build_id, (SELECT count(*) FROM run_symptoms s WHERE s.job = r.job AND s.build_id = r.build_id
	AND s.symptom_id = 'pod-network-cross-node') AS podnet
FROM runs r JOIN jobs j ON j.name = r.job WHERE j.topology = 'single'`)
	for _, r := range single {
		if r["podnet"] != "0" {
			t.Errorf("single-node run %s shows pod-network-cross-node", r["build_id"])
		}
	}
	if len(single) != 5 {
		t.Errorf("%d single-node runs, want 5", len(single))
	}
}
