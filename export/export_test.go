package export_test

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the test counts rows as an analyst would

	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/crawler"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/export"
)

// crawlSample crawls the bundled sample bucket into a new database.
func crawlSample(t *testing.T) *db.DB {
	t.Helper()
	store, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "prowcrawl.db"))
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
	cfg := crawler.Config{Jobs: []*regexp.Regexp{regexp.MustCompile("upgrade")}, Presubmits: true,
		Since: time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC), Rules: rules}
	if _, err := crawler.New(src, store, cfg).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	return store
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

// TestExportRoundTrip: every run, test and symptom of the database appears
// once in the JSONL, and every line fits the schema file.
func TestExportRoundTrip(t *testing.T) {
	store := crawlSample(t)
	var buf bytes.Buffer
	w := export.NewWriter(&buf)
	if err := store.ExportRuns(t.Context(), func(r db.ExportRun) error { return w.Write(export.FromDB(r)) }); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
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
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 16<<20)
	for line := 1; sc.Scan(); line++ {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
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
			k := key + "|" + x.(map[string]any)["id"].(string)
			if symptoms[k] {
				t.Errorf("symptom %s exported twice", k)
			}
			symptoms[k] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		got  int
		q    string
	}{
		{"runs", len(runs), `SELECT count(*) FROM runs`},
		{"tests", len(tests), `SELECT count(*) FROM tests`},
		{"symptoms", len(symptoms), `SELECT count(*) FROM run_symptoms`},
	} {
		if want := count(t, store, c.q); c.got != want || want == 0 {
			t.Errorf("exported %d %s, the database holds %d", c.got, c.what, want)
		}
	}
}
