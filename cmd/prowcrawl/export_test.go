package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestExportCommand: `export --out --schema` writes a line for every run of
// the database, each build_id a string of digits, says how many it wrote,
// and writes the schema that types build_id STRING and nests the
// disruption.
func TestExportCommand(t *testing.T) {
	dbPath := demoDB(t)
	dir := t.TempDir()
	out, schemaPath := filepath.Join(dir, "runs.jsonl"), filepath.Join(dir, "schema.json")
	stdout := runOK(t, "export", "--db", dbPath, "--out", out, "--schema", schemaPath)

	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	digits := regexp.MustCompile(`^[0-9]+$`)
	n := 0
	for line := range bytes.Lines(data) {
		n++
		var obj map[string]any
		if err := json.Unmarshal(line, &obj); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if id, ok := obj["build_id"].(string); !ok || !digits.MatchString(id) {
			t.Errorf("line %d: build_id %T %v, want a string of digits", n, obj["build_id"], obj["build_id"])
		}
	}
	if want := countRows(t, dbPath, `SELECT count(*) FROM runs`); n != want || n == 0 {
		t.Errorf("exported %d lines, the database holds %d runs", n, want)
	}
	if want := fmt.Sprintf("export: %d runs to %s\n", n, out); stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}

	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var schema []struct{ Name, Type, Mode string }
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatalf("schema: %v", err)
	}
	got := map[string]string{}
	for _, f := range schema {
		got[f.Name] = f.Type + " " + f.Mode
	}
	for name, want := range map[string]string{"build_id": "STRING REQUIRED", "symptoms": "RECORD REPEATED", "disruptions": "RECORD REPEATED"} {
		if got[name] != want {
			t.Errorf("schema: %s is %q, want %q", name, got[name], want)
		}
	}
}
