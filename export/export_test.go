package export_test

import (
	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/mirror"

	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the test counts rows as an analyst would

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/crawler"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/export"
	"github.com/openshift-eng/prowcrawl/report"
)

// crawlSample crawls the bundled sample bucket into a new database.
func crawlSample(t *testing.T) *db.DB {
	t.Helper()
	store, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "prowcrawl.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	src, err := mirror.New(filepath.Join("..", "testdata", "bucket"))
	if err != nil {
		t.Fatal(err)
	}
	rules, err := classify.NewEngine(classify.Builtin())
	if err != nil {
		t.Fatal(err)
	}
	cfg := crawler.Config{Jobs: []*regexp.Regexp{regexp.MustCompile("upgrade")}, Presubmits: true,
		Since: time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC), Rules: rules}
	if _, err := crawler.New(src, store, cfg).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	return store
}

// exportSample crawls the sample and exports it: the database and its JSONL.
func exportSample(t *testing.T) (*db.DB, []byte) {
	t.Helper()
	store := crawlSample(t)
	var buf bytes.Buffer
	w := export.NewWriter(&buf)
	if err := store.ExportRuns(t.Context(), func(r db.ExportRun) error { return w.Write(export.FromDB(r)) }); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if w.Count() == 0 {
		t.Fatal("the sample exported no run")
	}
	return store, buf.Bytes()
}

// lines calls fn with every line of the JSONL data, numbered from 1.
func lines(t *testing.T, data []byte, fn func(n int, line []byte)) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		fn(n, sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

func count(t *testing.T, store *db.DB, q string) int {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+store.Path()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n int
	if err := raw.QueryRowContext(t.Context(), q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// validate checks one JSON object against a BigQuery schema: no unknown
// field, every REQUIRED one present and not null, each value of its type.
func validate(path string, obj map[string]any, fields []export.Field) error {
	known := make(map[string]export.Field, len(fields))
	for _, f := range fields {
		known[f.Name] = f
		v, ok := obj[f.Name]
		if f.Mode == "REQUIRED" && (!ok || v == nil) {
			return fmt.Errorf("%s.%s: required field missing", path, f.Name)
		}
		if !ok || v == nil {
			continue
		}
		if f.Mode == "REPEATED" {
			items, ok := v.([]any)
			if !ok {
				return fmt.Errorf("%s.%s: want an array, got %T", path, f.Name, v)
			}
			for i, it := range items {
				o, ok := it.(map[string]any)
				if !ok {
					return fmt.Errorf("%s.%s[%d]: want an object", path, f.Name, i)
				}
				if err := validate(fmt.Sprintf("%s.%s[%d]", path, f.Name, i), o, f.Fields); err != nil {
					return err
				}
			}
			continue
		}
		if err := checkType(f.Type, v); err != nil {
			return fmt.Errorf("%s.%s: %w", path, f.Name, err)
		}
	}
	for k := range obj {
		if _, ok := known[k]; !ok {
			return fmt.Errorf("%s.%s: not in the schema", path, k)
		}
	}
	return nil
}

func checkType(typ string, v any) error {
	switch typ {
	case "STRING":
		if _, ok := v.(string); !ok {
			return fmt.Errorf("want a string, got %T", v)
		}
	case "INTEGER":
		n, ok := v.(json.Number)
		if _, err := n.Int64(); !ok || err != nil {
			return fmt.Errorf("want an integer, got %v", v)
		}
	case "FLOAT":
		n, ok := v.(json.Number)
		if _, err := n.Float64(); !ok || err != nil {
			return fmt.Errorf("want a number, got %v", v)
		}
	case "BOOLEAN":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("want true or false, got %v", v)
		}
	case "TIMESTAMP":
		s, ok := v.(string)
		if _, err := time.Parse(time.RFC3339, s); !ok || err != nil {
			return fmt.Errorf("want an RFC 3339 time, got %v", v)
		}
	default:
		return fmt.Errorf("type %s not handled", typ)
	}
	return nil
}

// TestExportRoundTrip: every run, test, symptom and backend's disruption of
// the database appears once in the JSONL, and every line fits the schema
// file.
func TestExportRoundTrip(t *testing.T) {
	store, data := exportSample(t)
	var schemaFile bytes.Buffer
	if err := export.WriteSchema(&schemaFile); err != nil {
		t.Fatal(err)
	}
	var schema []export.Field
	if err := json.Unmarshal(schemaFile.Bytes(), &schema); err != nil {
		t.Fatalf("schema file: %v", err)
	}

	runs := make(map[string]bool)
	tests := make(map[string]bool)
	symptoms := make(map[string]bool)
	disruptions := make(map[string]bool)
	symptomsWith := make(map[string]int) // symptoms that have a field
	var files int
	lines(t, data, func(line int, text []byte) {
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.UseNumber()
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		if err := validate(fmt.Sprintf("line %d", line), obj, schema); err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("%s/%s", obj["job"], obj["build_id"])
		if runs[key] {
			t.Errorf("run %s exported twice", key)
		}
		runs[key] = true
		for _, x := range obj["tests"].([]any) {
			tt := x.(map[string]any)
			k := strings.Join([]string{key, tt["suite"].(string), tt["name"].(string)}, "|")
			if tests[k] {
				t.Errorf("test %s exported twice", k)
			}
			tests[k] = true
		}
		for _, x := range obj["symptoms"].([]any) {
			sy := x.(map[string]any)
			k := key + "|" + sy["id"].(string)
			if symptoms[k] {
				t.Errorf("symptom %s exported twice", k)
			}
			symptoms[k] = true
			for _, f := range []string{"rule_hash", "last_at"} {
				if sy[f] != nil {
					symptomsWith[f]++
				}
			}
		}
		for _, x := range obj["disruptions"].([]any) {
			d := x.(map[string]any)
			k := key + "|" + d["backend"].(string)
			if disruptions[k] {
				t.Errorf("disruption %s exported twice", k)
			}
			disruptions[k] = true
			n, _ := d["files"].(json.Number).Int64()
			files += int(n)
		}
	})
	for _, c := range []struct {
		what string
		got  int
		q    string
	}{
		{"runs", len(runs), `SELECT count(*) FROM runs`},
		{"tests", len(tests), `SELECT count(*) FROM tests`},
		{"symptoms", len(symptoms), `SELECT count(*) FROM run_symptoms`},
		{"symptoms with a rule version", symptomsWith["rule_hash"], `SELECT count(*) FROM run_symptoms WHERE rule_hash IS NOT NULL`},
		{"symptoms with a last time", symptomsWith["last_at"], `SELECT count(*) FROM run_symptoms WHERE last_at IS NOT NULL`},
		{"backends' disruptions", len(disruptions), `SELECT count(*) FROM (SELECT DISTINCT job, build_id, backend FROM run_disruptions)`},
		{"disruption files", files, `SELECT count(*) FROM run_disruptions`},
	} {
		if want := count(t, store, c.q); c.got != want || want == 0 {
			t.Errorf("exported %d %s, the database holds %d", c.got, c.what, want)
		}
	}
}

// exported is what the rebuild of the report reads of a line of the export,
// and all it reads.
type exported struct {
	Job            string  `json:"job"`
	BuildID        string  `json:"build_id"`
	Edge           string  `json:"edge"`
	JobType        string  `json:"job_type"`
	Topology       string  `json:"topology"`
	Result         string  `json:"result"`
	UpgradeStarted *bool   `json:"upgrade_started"`
	OverallResult  string  `json:"overall_result"`
	Symptoms       []shown `json:"symptoms"`
	Rules          []struct {
		ID, Hash, Population string
	} `json:"rules"`
}

// shown is a symptom of an exported run.
type shown struct {
	ID string `json:"id"`
}

// counted says whether run r counts in the rates of rule: the one
// definition of a counted run (prowcrawl.PopulationOf), from the exported
// fields alone (the run's result, upgrade, topology and the rule versions
// that read it), in a release scope (no presubmit). The population the
// export states for the rule must be the same.
func counted(t *testing.T, r exported, rule classify.Rule) bool {
	t.Helper()
	facts := prowcrawl.RunFacts{Job: r.Job, Result: prowcrawl.Result(r.Result), UpgradeStarted: r.UpgradeStarted, Topology: r.Topology,
		Overall: prowcrawl.OverallResult(r.OverallResult)}
	stated := ""
	for _, x := range r.Rules {
		if x.Hash != "" {
			facts.Evaluated = append(facts.Evaluated, prowcrawl.RuleVersion{ID: x.ID, Hash: x.Hash})
		}
		if x.ID == rule.ID {
			stated = x.Population
		}
	}
	p := prowcrawl.PopulationOf(facts, prowcrawl.RuleVersion{ID: rule.ID, Hash: rule.Hash()}, rule.Reach())
	if string(p) != stated {
		t.Errorf("%s/%s: the export states the population %q for %s, its fields say %q", r.Job, r.BuildID, stated, rule.ID, p)
	}
	return p == prowcrawl.Counted && r.JobType != "presubmit"
}

// edgeCount is a symptom's counts on an edge: counted runs, and of those
// the runs showing it.
type edgeCount struct{ runs, hits int }

type symptomEdge struct{ symptom, edge string }

// rebuild counts, from the JSONL data alone, every rule's counted runs and
// runs showing it on every edge.
func rebuild(t *testing.T, data []byte, rules []classify.Rule) map[symptomEdge]edgeCount {
	t.Helper()
	out := map[symptomEdge]edgeCount{}
	lines(t, data, func(n int, line []byte) {
		var r exported
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if r.Edge == "" {
			return
		}
		for _, rule := range rules {
			if !counted(t, r, rule) {
				continue
			}
			k := symptomEdge{rule.ID, r.Edge}
			c := out[k]
			c.runs++
			if slices.Contains(r.Symptoms, shown{rule.ID}) {
				c.hits++
			}
			out[k] = c
		}
	})
	return out
}

// TestExportRebuildsReport: the export alone gives every symptom's counts
// per edge that the report gives: the analysis's rates of every edge, and
// both sides of every release comparison of the report's JSON.
func TestExportRebuildsReport(t *testing.T) {
	store, data := exportSample(t)
	rules := classify.Builtin()
	got := rebuild(t, data, rules)

	res, err := analyze.Compute(t.Context(), store, analyze.DefaultOptions(), analyze.Query{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[symptomEdge]edgeCount{}
	for _, r := range res.Rates {
		if r.Scope == db.ScopeEdge && r.FinishedRuns > 0 {
			want[symptomEdge{r.Symptom, r.Key}] = edgeCount{r.FinishedRuns, r.RunsWith}
		}
	}
	if len(want) == 0 {
		t.Fatal("the analysis of the sample has no edge")
	}
	hits := 0
	for k, w := range want {
		hits += w.hits
		if got[k] != w {
			t.Errorf("%s on %s: the export counts %d runs, %d showing it; the analysis %d, %d", k.symptom, k.edge, got[k].runs, got[k].hits, w.runs, w.hits)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s on %s: the export counts %d runs, %d showing it; the analysis has no such edge", k.symptom, k.edge, g.runs, g.hits)
		}
	}
	if hits == 0 {
		t.Error("no run of the sample shows a symptom on an edge: the comparison proves nothing")
	}

	// The report's JSON, as `report --format json` prints it.
	rep, err := analyze.LoadTable(t.Context(), store, analyze.TableQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := report.Write(&js, rep, report.FormatJSON, report.Options{}); err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Symptom    string `json:"symptom_id"`
		Scope      string `json:"scope"`
		Key        string `json:"scope_key"`
		Comparison string `json:"comparison"`
		SampleRuns int    `json:"sample_runs"`
		SampleHits int    `json:"sample_hits"`
		BasisLabel string `json:"basis_label"`
		BasisRuns  int    `json:"basis_runs"`
		BasisHits  int    `json:"basis_hits"`
	}
	if err := json.Unmarshal(js.Bytes(), &rows); err != nil {
		t.Fatalf("report JSON: %v", err)
	}
	compared := 0
	for _, r := range rows {
		if r.Scope != db.ScopeEdge || r.Comparison != db.CompareRelease {
			continue
		}
		compared++
		for _, side := range []struct {
			edge       string
			runs, hits int
		}{{r.Key, r.SampleRuns, r.SampleHits}, {r.BasisLabel, r.BasisRuns, r.BasisHits}} {
			if g := got[symptomEdge{r.Symptom, side.edge}]; g != (edgeCount{side.runs, side.hits}) {
				t.Errorf("%s on %s: the export counts %d runs, %d showing it; the report %d, %d", r.Symptom, side.edge, g.runs, g.hits, side.runs, side.hits)
			}
		}
	}
	if compared == 0 {
		t.Error("the report of the sample has no release comparison of edges")
	}
}

// TestExportBuildIDsSurviveFloat64: a reader that holds every JSON number
// as a float64 (jq 1.6, JavaScript, encoding/json into any) reads every
// build id as the database holds it, digit for digit.
func TestExportBuildIDsSurviveFloat64(t *testing.T) {
	store, data := exportSample(t)
	raw, err := sql.Open("sqlite", "file:"+store.Path()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.QueryContext(t.Context(), `SELECT job, build_id FROM runs`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{}
	lossy := 0 // ids a float64 cannot hold: those the test is for
	for rows.Next() {
		var job string
		var id int64
		if err := rows.Scan(&job, &id); err != nil {
			t.Fatal(err)
		}
		want[job] = append(want[job], strconv.FormatInt(id, 10))
		if int64(float64(id)) != id {
			lossy++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	lines(t, data, func(n int, line []byte) {
		var obj map[string]any
		if err := json.Unmarshal(line, &obj); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		id, ok := obj["build_id"].(string)
		if !ok {
			t.Fatalf("line %d: build_id is %T %v, want a string", n, obj["build_id"], obj["build_id"])
		}
		got[obj["job"].(string)] = append(got[obj["job"].(string)], id)
	})
	for job := range want {
		slices.Sort(want[job])
		slices.Sort(got[job])
	}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("build ids read back:\n%v\nwant\n%v", got, want)
	}
	if lossy == 0 {
		t.Error("no build id of the sample is beyond a float64's 53 bits: the test proves nothing")
	}
}

// TestSchemaCoversRun: Schema lists exactly the JSON fields of Run and of
// the records nested in it, each of the type and mode its Go field says, so
// that a field added to Run without its column (or the other way round)
// fails here; and the columns the report is rebuilt from are what a BigQuery
// query of them needs.
func TestSchemaCoversRun(t *testing.T) {
	schema := export.Schema()
	checkFields(t, "run", reflect.TypeFor[export.Run](), schema)

	got := map[string]string{}
	var flatten func(prefix string, fields []export.Field)
	flatten = func(prefix string, fields []export.Field) {
		for _, f := range fields {
			got[prefix+f.Name] = f.Type + " " + f.Mode
			flatten(prefix+f.Name+".", f.Fields)
		}
	}
	flatten("", schema)
	for name, want := range map[string]string{
		"build_id":                 "STRING REQUIRED",
		"edge":                     "STRING NULLABLE",
		"variant":                  "STRING NULLABLE",
		"job_type":                 "STRING NULLABLE",
		"topology":                 "STRING NULLABLE",
		"platform":                 "STRING NULLABLE",
		"network":                  "STRING NULLABLE",
		"arch":                     "STRING NULLABLE",
		"job_release":              "STRING NULLABLE",
		"job_from_release":         "STRING NULLABLE",
		"job_upgrade":              "STRING NULLABLE",
		"upgrade_started":          "BOOLEAN NULLABLE",
		"result":                   "STRING REQUIRED",
		"started_at":               "TIMESTAMP NULLABLE",
		"finished_at":              "TIMESTAMP NULLABLE",
		"from_version":             "STRING NULLABLE",
		"to_version":               "STRING NULLABLE",
		"upgrade_state":            "STRING NULLABLE",
		"symptoms":                 "RECORD REPEATED",
		"symptoms.id":              "STRING REQUIRED",
		"symptoms.hits":            "INTEGER REQUIRED",
		"symptoms.at":              "TIMESTAMP NULLABLE",
		"symptoms.last_at":         "TIMESTAMP NULLABLE",
		"symptoms.rule_hash":       "STRING NULLABLE",
		"disruptions":              "RECORD REPEATED",
		"disruptions.backend":      "STRING REQUIRED",
		"disruptions.backend_name": "STRING NULLABLE",
		"disruptions.connection":   "STRING NULLABLE",
		"disruptions.disrupted_s":  "FLOAT NULLABLE",
		"disruptions.files":        "INTEGER REQUIRED",
	} {
		if got[name] != want {
			t.Errorf("schema: %s is %q, want %q", name, got[name], want)
		}
	}
}

// checkFields compares the JSON fields of struct typ with fields: the same
// names, a nested list as a REPEATED RECORD, a pointer or an omitempty
// field NULLABLE, a time (a name "at" or ending in "_at") a TIMESTAMP, and
// a number written as a string (",string") a STRING.
func checkFields(t *testing.T, path string, typ reflect.Type, fields []export.Field) {
	t.Helper()
	byName := map[string]export.Field{}
	for _, f := range fields {
		byName[f.Name] = f
	}
	seen := map[string]bool{}
	for sf := range typ.Fields() {
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			t.Errorf("%s.%s: no JSON name", path, sf.Name)
			continue
		}
		seen[name] = true
		f, ok := byName[name]
		if !ok {
			t.Errorf("%s.%s: not in the schema", path, name)
			continue
		}
		ft, mode := sf.Type, "REQUIRED"
		if ft.Kind() == reflect.Pointer {
			ft, mode = ft.Elem(), "NULLABLE"
		}
		if slices.Contains(strings.Split(opts, ","), "omitempty") {
			mode = "NULLABLE"
		}
		var want string
		switch {
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			want, mode = "RECORD", "REPEATED"
			checkFields(t, path+"."+name, ft.Elem(), f.Fields)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String:
			want, mode = "STRING", "REPEATED"
		case slices.Contains(strings.Split(opts, ","), "string"):
			want = "STRING"
		case ft.Kind() == reflect.String && (name == "at" || strings.HasSuffix(name, "_at")):
			want = "TIMESTAMP"
		case ft.Kind() == reflect.String:
			want = "STRING"
		case ft.Kind() == reflect.Int || ft.Kind() == reflect.Int64:
			want = "INTEGER"
		case ft.Kind() == reflect.Float64:
			want = "FLOAT"
		case ft.Kind() == reflect.Bool:
			want = "BOOLEAN"
		default:
			t.Errorf("%s.%s: Go type %s has no BigQuery type here", path, name, sf.Type)
			continue
		}
		if f.Type != want || f.Mode != mode {
			t.Errorf("%s.%s: schema says %s %s, the Go field %s %s", path, name, f.Type, f.Mode, want, mode)
		}
	}
	for _, f := range fields {
		if !seen[f.Name] {
			t.Errorf("%s.%s: in the schema, not in the JSON", path, f.Name)
		}
	}
}
