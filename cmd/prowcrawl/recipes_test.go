package main

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The analysts' recipes are SQL files in docs/recipes, one question each,
// with a comment header that says what it answers. TestRecipesCountAsTheReport
// runs every file on the demo's database and compares its rows with the
// report's JSON: a recipe counts what the report counts. TestREADMEOutputs
// checks that the documentation's copy of each recipe is the file, and that
// every output it quotes is what the command prints on the demo's database.

var recipeDir = filepath.Join("..", "..", "docs", "recipes")

// recipeFiles returns the recipes of docs/recipes: name -> SQL text.
func recipeFiles(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(recipeDir, "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no recipe in %s", recipeDir)
	}
	out := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(p), ".sql")] = string(b)
	}
	return out
}

// sqliteValue is a value as the sqlite3 shell prints it in its list mode:
// NULL as nothing, a real with 15 significant digits and always a decimal
// point ("%!.15g": 3.0, 0.008).
func sqliteValue(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		s := strconv.FormatFloat(v, 'g', 15, 64)
		if !strings.ContainsAny(s, ".eIN") {
			s += ".0"
		}
		return s
	case []byte:
		return string(v)
	case string:
		return v
	case bool:
		if v {
			return "1"
		}
		return "0"
	}
	return fmt.Sprint(v)
}

// query runs q and returns its column names and its rows, each value as
// the sqlite3 shell prints it.
func query(t *testing.T, d *sql.DB, q string) ([]string, [][]string) {
	t.Helper()
	rs, err := d.QueryContext(t.Context(), q)
	if err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = sqliteValue(v)
		}
		out = append(out, row)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return cols, out
}

// sqliteHeader is what `sqlite3 -header DB < FILE` prints for one query:
// the column names, then a row a line, "|" between values; nothing when
// there is no row.
func sqliteHeader(cols []string, rows [][]string) string {
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(strings.Join(cols, "|") + "\n")
	for _, r := range rows {
		b.WriteString(strings.Join(r, "|") + "\n")
	}
	return b.String()
}

// recipeRows is a recipe's rows as maps from column name to value.
func recipeRows(t *testing.T, d *sql.DB, q string) []map[string]string {
	t.Helper()
	cols, rows := query(t, d, q)
	var out []map[string]string
	for _, r := range rows {
		m := map[string]string{}
		for i, c := range cols {
			m[c] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// reportRow is a row of `report --format json` (report/machine.go).
type reportRow struct {
	SymptomID     string   `json:"symptom_id"`
	Scope         string   `json:"scope"`
	ScopeKey      string   `json:"scope_key"`
	Comparison    string   `json:"comparison"`
	SampleRuns    int      `json:"sample_runs"`
	SampleHits    int      `json:"sample_hits"`
	SampleRate    *float64 `json:"sample_rate"`
	BasisLabel    string   `json:"basis_label"`
	BasisRuns     int      `json:"basis_runs"`
	BasisHits     int      `json:"basis_hits"`
	DeltaPoints   *float64 `json:"delta_points"`
	PValue        *float64 `json:"p_value"`
	Verdict       string   `json:"verdict"`
	SampleLeftOut int      `json:"sample_left_out"`
}

// seconds is a distribution of the assessment (assess/numbers.go).
type seconds struct {
	Runs   int      `json:"runs"`
	Median *float64 `json:"median_s"`
	P95    *float64 `json:"p95_s"`
	Max    *float64 `json:"max_s"`
}

// assessment is the part of `report --assess SYMPTOM --format json`
// (assess/assess.go) that the recipes answer too.
type assessment struct {
	Impacted struct {
		Edges []struct {
			Key          string `json:"key"`
			FinishedRuns int    `json:"finished_runs"`
			RunsWith     int    `json:"runs_with"`
			FailedWith   int    `json:"failed_with"`
			LeftOut      int    `json:"left_out"`
		} `json:"edges"`
	} `json:"who_is_impacted"`
	Impact struct {
		RunsWith   int                 `json:"runs_with"`
		Disruption []backendDisruption `json:"disruption"`
	} `json:"what_is_the_impact"`
	Remediation struct {
		Duration     seconds `json:"duration"`
		Recovered    int     `json:"recovered_by_itself"`
		NotRecovered int     `json:"not_recovered"`
	} `json:"how_involved_is_remediation"`
}

// backendDisruption is the disruption of one backend in an assessment's
// impact: in the runs with the symptom, and in each edge's release
// comparison.
type backendDisruption struct {
	Backend string  `json:"backend"`
	With    seconds `json:"with_symptom"`
	Release []struct {
		Edge   string  `json:"edge"`
		Sample seconds `json:"sample"`
	} `json:"release_comparison"`
}

func reportJSON(t *testing.T, dbPath string, args ...string) []reportRow {
	t.Helper()
	var rows []reportRow
	out := runReportCmd(t, append([]string{"--db", dbPath, "--format", "json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("report %v: %v\n%s", args, err, out)
	}
	return rows
}

func assessJSON(t *testing.T, dbPath, symptom string) assessment {
	t.Helper()
	var a assessment
	out := runReportCmd(t, "--db", dbPath, "--assess", symptom, "--format", "json")
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("report --assess %s: %v\n%s", symptom, err, out)
	}
	return a
}

// num is a recipe's value as a number (0 for an empty value).
func num(t *testing.T, s string) float64 {
	t.Helper()
	if s == "" {
		return 0
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return f
}

func val(f *float64) float64 {
	if f == nil {
		return math.NaN()
	}
	return *f
}

// percentile interpolates linearly between ranks, as the assessment does.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := p * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (pos-float64(lo))*(sorted[lo+1]-sorted[lo])
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// TestRecipesCountAsTheReport runs every recipe of docs/recipes on the
// demo's database and checks its numbers against the report's JSON
// (report --format json, report --assess --format json) or, for the
// inventory of runs, against prowcrawl status. A recipe without a check
// here fails the test.
func TestRecipesCountAsTheReport(t *testing.T) {
	dbPath := demoDB(t)
	d := openSQL(t, dbPath)
	files := recipeFiles(t)

	byEdge := reportJSON(t, dbPath, "--by", "edge")
	edgeRow := func(symptom, edge string) (reportRow, bool) {
		for _, r := range byEdge {
			if r.SymptomID == symptom && r.ScopeKey == edge && r.Comparison == "release" {
				return r, true
			}
		}
		return reportRow{}, false
	}
	pod := assessJSON(t, dbPath, "pod-network-cross-node")
	const edge = "4.13->4.14 minor" // the edge the recipes ask about

	checks := map[string]func(t *testing.T, rs []map[string]string){
		"regressions-this-week": func(t *testing.T, rs []map[string]string) {
			var want []string
			for _, by := range []string{"edge", "variant", "job", "presubmit"} {
				for _, r := range reportJSON(t, dbPath, "--by", by) {
					if r.Verdict == "regression" {
						want = append(want, fmt.Sprintf("%s %s %s %s %d/%d %d/%d %.1f", r.SymptomID, r.Scope, r.ScopeKey, r.Comparison,
							r.SampleHits, r.SampleRuns, r.BasisHits, r.BasisRuns, val(r.DeltaPoints)))
					}
				}
			}
			var got []string
			for _, r := range rs {
				got = append(got, fmt.Sprintf("%s %s %s %s %s %s %.1f", r["symptom_id"], r["scope"], r["scope_key"], r["comparison"],
					r["sample"], r["basis"], num(t, r["delta_points"])))
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) || len(want) == 0 {
				t.Errorf("regressions\n got %q\nwant %q (the report's)", got, want)
			}
		},
		"runs-with-symptom": func(t *testing.T, rs []map[string]string) {
			r, ok := edgeRow("pod-network-cross-node", edge)
			if !ok {
				t.Fatalf("the report has no row of pod-network-cross-node on %s", edge)
			}
			failed := 0
			for _, row := range rs {
				if row["result"] != "success" {
					failed++
				}
				if row["excerpt"] == "" || row["url"] == "" {
					t.Errorf("a row without its link or evidence: %v", row)
				}
			}
			if len(rs) != r.SampleHits {
				t.Errorf("%d runs, the report's HITS are %d", len(rs), r.SampleHits)
			}
			for _, e := range pod.Impacted.Edges {
				if e.Key == edge && (e.RunsWith != len(rs) || e.FailedWith != failed) {
					t.Errorf("%d runs, %d failed; the assessment: %d, %d failed", len(rs), failed, e.RunsWith, e.FailedWith)
				}
			}
		},
		"flakiest-tests": func(t *testing.T, rs []map[string]string) {
			// The report prints no flake rates: the documentation's quote of
			// its output is checked, and the db package checks the
			// flakes against the sample's answer key.
			if len(rs) == 0 {
				t.Error("no flaky test; the sample has some")
			}
		},
		"symptom-rates-per-edge": func(t *testing.T, rs []map[string]string) {
			var want, got []string
			for _, r := range byEdge {
				if r.Comparison == "release" && r.SampleHits > 0 {
					want = append(want, fmt.Sprintf("%s %s %d/%d %.1f left out %d", r.SymptomID, r.ScopeKey, r.SampleHits, r.SampleRuns,
						math.Round(1000*val(r.SampleRate))/10, r.SampleLeftOut))
				}
			}
			for _, r := range rs {
				got = append(got, fmt.Sprintf("%s %s %s %.1f left out %s", r["symptom"], r["edge"], r["runs"], num(t, r["pct"]), r["left_out"]))
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("rates\n got %q\nwant %q (report --by edge --format json)", got, want)
			}
		},
		"disruption-per-edge": func(t *testing.T, rs []map[string]string) {
			compared := 0
			for _, b := range pod.Impact.Disruption {
				for _, rc := range b.Release {
					if rc.Edge != edge {
						continue
					}
					i := slices.IndexFunc(rs, func(r map[string]string) bool { return r["backend"] == b.Backend })
					if i < 0 {
						t.Errorf("%s: not in the recipe's rows", b.Backend)
						continue
					}
					compared++
					if got := int(num(t, rs[i]["runs"])); got != rc.Sample.Runs || !near(num(t, rs[i]["worst_s"]), val(rc.Sample.Max)) {
						t.Errorf("%s on %s: %d runs, worst %s s; the assessment: %d runs, worst %v s", b.Backend, edge, got, rs[i]["worst_s"], rc.Sample.Runs, val(rc.Sample.Max))
					}
				}
			}
			if compared == 0 {
				t.Errorf("the assessment compares no backend on %s", edge)
			}
			if r, _ := edgeRow("pod-network-cross-node", edge); len(rs) > 0 && int(num(t, rs[0]["runs"])) != r.SampleRuns {
				t.Errorf("%s runs on %s, the report counts %d", rs[0]["runs"], edge, r.SampleRuns)
			}
		},
		"assess-disruption": func(t *testing.T, rs []map[string]string) {
			var secs []float64
			for _, r := range rs {
				secs = append(secs, num(t, r["disrupted_s"]))
			}
			i := slices.IndexFunc(pod.Impact.Disruption, func(b backendDisruption) bool {
				return b.Backend == "pod-to-pod-new-connections"
			})
			if i < 0 {
				t.Fatal("the assessment has no pod-to-pod-new-connections")
			}
			w := pod.Impact.Disruption[i].With
			if len(secs) != w.Runs || !near(percentile(secs, 0.5), val(w.Median)) || !near(percentile(secs, 0.95), val(w.P95)) ||
				!near(secs[len(secs)-1], val(w.Max)) {
				t.Errorf("%d runs, median %v, P95 %v, worst %v; the assessment: %d runs, median %v, P95 %v, worst %v", len(secs),
					percentile(secs, 0.5), percentile(secs, 0.95), secs[len(secs)-1], w.Runs, val(w.Median), val(w.P95), val(w.Max))
			}
		},
		"assess-remediation": func(t *testing.T, rs []map[string]string) {
			if len(rs) != 1 {
				t.Fatalf("%d rows, want 1", len(rs))
			}
			r, rem := rs[0], pod.Remediation
			got := fmt.Sprintf("%s runs, worst %.0f s, %s recovered, %s not", r["timed_runs"], num(t, r["worst_s"]), r["recovered"], r["not_recovered"])
			want := fmt.Sprintf("%d runs, worst %.0f s, %d recovered, %d not", rem.Duration.Runs, val(rem.Duration.Max), rem.Recovered, rem.NotRecovered)
			if got != want {
				t.Errorf("%s; the assessment: %s", got, want)
			}
		},
		"runs-per-job": func(t *testing.T, rs []map[string]string) {
			// status: JOB EDGE PLATFORM RUNS SUCCESS FAILURE ABORTED ERROR PENDING FLAKES NEWEST RUN
			out := runOK(t, "status", "--db", dbPath, "--wide")
			want := map[string]string{}
			results := []string{"success", "failure", "aborted", "error", "pending"}
			sc := bufio.NewScanner(strings.NewReader(out))
			for sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) < 9 || f[0] == "JOB" || !strings.Contains(f[0], "-") {
					if len(f) == 0 {
						break // the table of jobs ends
					}
					continue
				}
				counts := f[len(f)-7 : len(f)-2]
				for i, res := range results {
					if counts[i] != "0" {
						want[f[0]+" "+res] = counts[i]
					}
				}
			}
			got := map[string]string{}
			for _, r := range rs {
				got[r["job"]+" "+r["result"]] = r["runs"]
			}
			if fmt.Sprint(got) != fmt.Sprint(want) || len(want) == 0 {
				t.Errorf("runs per job and result\n got %v\nwant %v (prowcrawl status)", got, want)
			}
		},
		"failure-rate-14-days": func(t *testing.T, rs []map[string]string) {
			// upgrade-incomplete applies to every topology: its counted
			// runs are the runs a failure rate counts.
			want := map[string]int{}
			for _, r := range reportJSON(t, dbPath, "--by", "edge", "--since", "14d", "--symptom", "upgrade-incomplete") {
				if r.Comparison == "release" && r.SampleRuns > 0 {
					want[r.ScopeKey] = r.SampleRuns
				}
			}
			got := map[string]int{}
			for _, r := range rs {
				got[r["edge"]] += int(num(t, r["runs"]))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("runs of the last 14 days per edge\n got %v\nwant %v (report --since 14d)", got, want)
			}
		},
		"upgrades-not-completed": func(t *testing.T, rs []map[string]string) {
			// In the sample, every run that shows upgrade-incomplete
			// is a Partial upgrade, and every Partial upgrade is counted.
			var a assessment
			if err := json.Unmarshal([]byte(runReportCmd(t, "--db", dbPath, "--assess", "upgrade-incomplete", "--format", "json")), &a); err != nil {
				t.Fatal(err)
			}
			if len(rs) != a.Impact.RunsWith || len(rs) == 0 {
				t.Errorf("%d upgrades that never completed; the assessment of upgrade-incomplete counts %d runs showing it", len(rs), a.Impact.RunsWith)
			}
		},
		"upgrades-never-began": func(t *testing.T, rs []map[string]string) {
			want := map[string]int{}
			for _, r := range byEdge {
				if r.SymptomID == "upgrade-incomplete" && r.Comparison == "release" && r.SampleLeftOut > 0 {
					want[r.ScopeKey] = r.SampleLeftOut
				}
			}
			got := map[string]int{}
			for _, r := range rs {
				if r["edge"] != "" {
					got[r["edge"]]++
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) || len(want) == 0 {
				t.Errorf("runs whose upgrade never began, per edge\n got %v\nwant %v (the report's LEFT OUT)", got, want)
			}
		},
	}
	for name, q := range files {
		t.Run(name, func(t *testing.T) {
			if !strings.HasPrefix(q, "-- ") {
				t.Errorf("%s.sql: begin with a comment that says what it answers", name)
			}
			check, ok := checks[name]
			if !ok {
				t.Fatalf("docs/recipes/%s.sql has no check in TestRecipesCountAsTheReport", name)
			}
			check(t, recipeRows(t, d, q))
		})
	}
	for name := range checks {
		if _, ok := files[name]; !ok {
			t.Errorf("a check for docs/recipes/%s.sql, which does not exist", name)
		}
	}
}

// readmeRecipeRE finds a recipe's copy in the documentation: its name, then its
// SQL. "recipe:" marks the recipes the db package's tests also run (and
// plan); "recipe file:" the others.
var readmeRecipeRE = regexp.MustCompile("(?s)<!-- recipe(?: file)?: ([a-z0-9-]+) -->\\s*```sql\\n(.*?)```\\s*<!-- /recipe -->")

// outputRE finds a quoted output: the marker, then the code block.
// "<!-- output -->" quotes it whole; "<!-- output: abridged -->" leaves
// lines out where a line reads "...".
var outputRE = regexp.MustCompile("(?s)<!-- output(: abridged)? -->\\s*```\\n(.*?)```")

// recipeCommand is how the documentation runs a recipe.
var recipeCommand = regexp.MustCompile(`^\$ sqlite3 -header prowcrawl\.db < docs/recipes/([a-z0-9-]+)\.sql$`)

// noOutputQuoted are the recipes whose output the documentation does not
// quote, and why.
var noOutputQuoted = map[string]string{
	"failure-rate-14-days": "its answer depends on the day it is asked",
}

// matchAbridged says whether quote, whose "..." lines stand for one or more
// lines left out, is got: every other line equal, in order, and the first
// and last ones the first and last of got unless a "..." is there.
// Trailing spaces do not count.
func matchAbridged(quote, got []string) bool {
	segs := [][]string{{}}
	for _, l := range quote {
		if strings.TrimSpace(l) == "..." {
			segs = append(segs, []string{})
			continue
		}
		segs[len(segs)-1] = append(segs[len(segs)-1], l)
	}
	return matchSegments(segs, got, 0, true)
}

// matchSegments says whether segs match got from pos: the first at pos
// exactly when first, else after one line left out or more; the last one
// ending got.
func matchSegments(segs [][]string, got []string, pos int, first bool) bool {
	seg, last := segs[0], len(segs) == 1
	from, to := pos, pos
	if !first {
		from, to = pos+1, len(got)
	}
	for at := from; at <= to && at+len(seg) <= len(got); at++ {
		if !slices.Equal(seg, got[at:at+len(seg)]) {
			continue
		}
		if last {
			if at+len(seg) == len(got) {
				return true
			}
			continue
		}
		if matchSegments(segs[1:], got, at+len(seg), false) {
			return true
		}
	}
	return false
}

func trimLines(s string) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// TestREADMEOutputs: the documentation's copy of each recipe (in
// README.md or any docs/*.md) is its file; it quotes each recipe's output
// (but those of noOutputQuoted) as `sqlite3 -header prowcrawl.db <
// docs/recipes/NAME.sql` prints it on the demo's database; and every other
// output it quotes after an output marker is what that prowcrawl command
// prints on the demo's database.
func TestREADMEOutputs(t *testing.T) {
	dbPath := demoDB(t)
	d := openSQL(t, dbPath)
	files := recipeFiles(t)
	docs := docFiles(t)

	copies := map[string]bool{}
	quoted := map[string]bool{}
	blocks := 0
	var cli map[string][]string // each command's flags, once a block needs them
	for _, doc := range docNames(docs) {
		text := docs[doc]
		for _, m := range readmeRecipeRE.FindAllStringSubmatch(text, -1) {
			name, sqlText := m[1], m[2]
			copies[name] = true
			file, ok := files[name]
			if !ok {
				t.Errorf("%s shows recipe %s, which is not in docs/recipes", doc, name)
				continue
			}
			if sqlText != file {
				t.Errorf("%s's copy of recipe %s differs from docs/recipes/%s.sql: copy the file into %s\n%s:\n%s\nfile:\n%s", doc, name, name, doc, doc, sqlText, file)
			}
		}

		outputs := outputRE.FindAllStringSubmatch(text, -1)
		blocks += len(outputs)
		for _, m := range outputs {
			abridged, block := m[1] != "", m[2]
			lines := trimLines(block)
			cmd := lines[0]
			want := lines[1:]
			var got string
			if r := recipeCommand.FindStringSubmatch(cmd); r != nil {
				q, ok := files[r[1]]
				if !ok {
					t.Errorf("%s quotes %q: no such recipe", doc, cmd)
					continue
				}
				quoted[r[1]] = true
				got = sqliteHeader(query(t, d, q))
			} else if strings.HasPrefix(cmd, "$ prowcrawl ") {
				args := strings.Fields(strings.TrimPrefix(cmd, "$ prowcrawl "))
				if strings.ContainsAny(cmd, `'"\|>`) {
					t.Errorf("%s quotes %q: the test runs plain arguments only", doc, cmd)
					continue
				}
				if cli == nil {
					cli = commandFlags(t)
				}
				got = runQuoted(t, cli, args, dbPath)
			} else {
				t.Errorf("%s quotes the output of %q: an output block begins with \"$ prowcrawl ...\" or \"$ sqlite3 -header prowcrawl.db < docs/recipes/NAME.sql\"", doc, cmd)
				continue
			}
			gotLines := trimLines(got)
			ok := slices.Equal(want, gotLines)
			if abridged {
				ok = matchAbridged(want, gotLines)
			}
			if !ok {
				t.Errorf("%s quotes the output of %q, which now reads (on make demo's database; copy it into %s%s):\n%s", doc, cmd, doc,
					map[bool]string{true: ", leaving lines out as \"...\"", false: ""}[abridged], strings.Join(gotLines, "\n"))
			}
		}
	}
	if blocks == 0 {
		t.Fatal("no <!-- output --> block in README.md or docs/*.md")
	}

	for name := range files {
		if !copies[name] {
			t.Errorf("neither README.md nor docs/*.md shows recipe %s: put docs/recipes/%s.sql between <!-- recipe: %s --> and <!-- /recipe --> (docs/DATABASE.md)", name, name, name)
		}
		if _, skip := noOutputQuoted[name]; !quoted[name] && !skip {
			t.Errorf("neither README.md nor docs/*.md quotes the output of recipe %s: add <!-- output --> and a block with $ sqlite3 -header prowcrawl.db < docs/recipes/%s.sql", name, name)
		}
	}
}

// runQuoted runs a prowcrawl command the documentation quotes, as a reader
// would from the repository's root after make demo: with --db the demo's
// database when the command has that flag, and each argument that is a path
// of the repository (testdata/..., bugreport/...) read from there. Its
// output names those paths as quoted.
func runQuoted(t *testing.T, cli map[string][]string, args []string, dbPath string) string {
	t.Helper()
	args = slices.Clone(args)
	var paths []string
	for i, a := range args {
		if i == 0 || strings.HasPrefix(a, "-") || filepath.IsAbs(a) {
			continue
		}
		if _, err := os.Stat(filepath.Join(repoRoot, a)); err == nil {
			args[i] = filepath.Join(repoRoot, a)
			paths = append(paths, a)
		}
	}
	if slices.Contains(cli[args[0]], "--db") {
		args = append(args, "--db", dbPath)
	}
	out := runOK(t, args...)
	for _, a := range paths {
		out = strings.ReplaceAll(out, filepath.Join(repoRoot, a), a)
	}
	return out
}

// TestMatchAbridged: "..." stands for lines left out.
func TestMatchAbridged(t *testing.T) {
	got := []string{"a", "b", "c", "d"}
	for _, c := range []struct {
		quote string
		want  bool
	}{
		{"a\nb\nc\nd", true},
		{"a\n...\nd", true},
		{"a\n...", true},
		{"...\nd", true},
		{"a\n...\nc\n...", true},
		{"a\nc\nd", false},
		{"b\n...", false},
		{"a\n...\nc", false},
		{"a\nb\n...\nc\nd", false},
		{"d\n...\na", false},
	} {
		if ok := matchAbridged(strings.Split(c.quote, "\n"), got); ok != c.want {
			t.Errorf("%q: %v, want %v", c.quote, ok, c.want)
		}
	}
}
