package db_test

import (
	"database/sql"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/crawler"
	"github.com/openshift-eng/prowcrawl/db"
)

// demoDB crawls the sample bucket into a new database, as 'make demo' does,
// analyses it, and returns it with its path.
func demoDB(t *testing.T) (*db.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "prowcrawl.db")
	store, err := db.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	src, err := crawler.NewDir(filepath.Join("..", "testdata", "bucket"))
	if err != nil {
		t.Fatal(err)
	}
	rules, err := classify.NewEngine(classify.Builtin())
	if err != nil {
		t.Fatal(err)
	}
	cfg := crawler.Config{Jobs: []*regexp.Regexp{regexp.MustCompile("upgrade")}, Presubmits: true, Rules: rules,
		Since: time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := crawler.New(src, store, cfg).Run(t.Context()); err != nil {
		t.Fatalf("crawl: %v", err)
	}
	if _, err := analyze.Run(t.Context(), store, analyze.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	return store, path
}

// recipeRE finds a recipe in the documentation: its name, then its SQL.
var recipeRE = regexp.MustCompile("(?s)<!-- recipe: ([a-z0-9-]+) -->\\s*```sql\\n(.*?)```\\s*<!-- /recipe -->")

// recipes reads the analysts' recipes from the documents that hold them
// (the report's page, and the README once it is merged there). A recipe in
// both must read the same.
func recipes(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, doc := range []string{filepath.Join("..", "docs", "REPORT.md"), filepath.Join("..", "README.md")} {
		b, err := os.ReadFile(doc)
		if os.IsNotExist(err) {
			continue
		}
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

// TestRecipes runs every analysts' recipe of the documentation against the
// demo's database: each returns what it promises, and reads through indexes.
func TestRecipes(t *testing.T) {
	store, path := demoDB(t)
	conn, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	all := recipes(t)

	// The regressions of the release comparison, as the report reads them.
	verdicts, err := store.Verdicts(t.Context(), db.Filter{})
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
			for _, r := range rs {
				if r["sample"] == "" || r["basis_label"] == "" || r["p"] == "" {
					t.Errorf("incomplete row %v", r)
				}
			}
		}},
		"runs-with-symptom": {check: func(t *testing.T, _ []string, rs []map[string]string) {
			results := map[string]int{}
			for _, r := range rs {
				results[r["result"]]++
				if !strings.HasPrefix(r["url"], "https://prow.ci.openshift.org/view/") || r["excerpt"] == "" || r["file"] == "" {
					t.Errorf("row without a link or evidence: %v", r)
				}
			}
			if len(rs) != 6 || results["failure"] != 5 || results["success"] != 1 {
				t.Errorf("%d runs (%v), want the 6 planted on 4.13->4.14 minor: 5 failed, 1 passed", len(rs), results)
			}
			if len(rs) > 1 && rs[0]["started_at"] < rs[len(rs)-1]["started_at"] {
				t.Error("not newest first")
			}
		}},
		"flakiest-tests": {check: func(t *testing.T, _ []string, rs []map[string]string) {
			if len(rs) == 0 {
				t.Fatal("no flaky test; the sample bucket has some")
			}
			last := 101.0
			for _, r := range rs {
				var pct float64
				if _, err := fmt.Sscan(r["flake_pct"], &pct); err != nil || pct <= 0 || pct > 100 || pct > last || r["flakes"] == "0" {
					t.Errorf("row %v: want flakes, a percentage, flakiest first", r)
				}
				last = pct
			}
		}},
		"symptom-rates-per-edge": {covering: true, check: func(t *testing.T, _ []string, rs []map[string]string) {
			got := map[string]string{}
			for _, r := range rs {
				got[r["symptom"]+" "+r["edge"]] = r["runs"] + " " + r["pct"]
			}
			for k, want := range map[string]string{
				"pod-network-cross-node 4.13->4.14 minor":  "6/14 42.9",
				"etcd-connection-refused 4.13->4.14 minor": "3/14 21.4",
				"etcd-connection-refused 4.12->4.13 minor": "3/14 21.4",
			} {
				if got[k] != want {
					t.Errorf("%s: %q, want %q", k, got[k], want)
				}
			}
			if _, ok := got["pod-network-cross-node 4.12->4.13 minor"]; ok {
				t.Error("a rate of zero listed")
			}
		}},
		"disruption-per-edge": {check: func(t *testing.T, _ []string, rs []map[string]string) {
			got := map[string]string{}
			for _, r := range rs {
				got[r["backend"]] = r["runs"] + " " + r["disrupted_runs"] + " " + r["worst_s"]
			}
			// The sample plants pod-to-pod disruption in 3 of the edge's
			// 14 finished runs, at most 6 s; the others record "0s".
			if want := "14 3 6.0"; got["pod-to-pod-new-connections"] != want {
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
	if len(names) != 6 || !slices.IsSorted(names) || !slices.Contains(names, "release-openshift-origin-installer-e2e-aws-upgrade") {
		t.Errorf("job names %q, want the 6 upgrade jobs of the sample, sorted", names)
	}
}

// TestRecipePlans explains every analysts' recipe of the documentation on a
// newly migrated database, as an analyst's sqlite3 plans it (no statistics),
// and fails when a plan reads a large table whole: a SCAN of runs, tests or
// run_symptoms (or of the analysis tables) that no index serves. A scan of a
// covering index is allowed only to the recipes that count every run of
// every scope key they return. The plans are printed with -v, in the short
// form the README shows.
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
	countsAll := map[string]bool{"symptom-rates-per-edge": true}
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
