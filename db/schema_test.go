package db

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateSchema = flag.Bool("update-schema", false, "write schema.sql from the migrations")

// TestSchemaSnapshot replays every migration on a new database and creates
// another from schema.sql, as Open does for a new file, and expects the
// same schema, the same recorded migrations and the same (empty) tables.
// With -update-schema (make schema) it writes schema.sql first.
func TestSchemaSnapshot(t *testing.T) {
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	newest := ms[len(ms)-1].version
	dir := t.TempDir()
	replayed, err := OpenAtVersion(t.Context(), filepath.Join(dir, "replayed.db"), newest)
	if err != nil {
		t.Fatal(err)
	}
	defer replayed.Close()
	if *updateSchema {
		stmts := queryStrings(t, replayed.db, `SELECT sql FROM sqlite_schema
WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations'
ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END, rowid`)
		text := fmt.Sprintf("-- version %d\n-- The schema of every migration up to %04d_%s, written by `make schema`; do not edit.\n\n%s;\n",
			newest, newest, ms[len(ms)-1].name, strings.Join(stmts, ";\n\n"))
		if err := os.WriteFile("schema.sql", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		schemaFile = text
	}
	if v := snapshotVersion(); v != newest {
		t.Fatalf("schema.sql is of migration %d, the newest is %d: run make schema", v, newest)
	}
	created, err := Open(t.Context(), filepath.Join(dir, "created.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer created.Close()

	const objects = `SELECT type || ' ' || name || ' on ' || tbl_name || ': ' || coalesce(sql, '') FROM sqlite_schema ORDER BY type, name`
	want, got := queryStrings(t, replayed.db, objects), queryStrings(t, created.db, objects)
	if len(want) < 20 {
		t.Fatalf("the migrations made only %d objects", len(want))
	}
	if !slices.Equal(got, want) {
		for _, s := range want {
			if !slices.Contains(got, s) {
				t.Errorf("missing from the database schema.sql made: %s", s)
			}
		}
		for _, s := range got {
			if !slices.Contains(want, s) {
				t.Errorf("not made by the migrations: %s", s)
			}
		}
		t.Fatal("schema.sql is not the schema of the migrations: run make schema")
	}
	const versions = `SELECT version || ' ' || name FROM schema_migrations ORDER BY version`
	if w, g := queryStrings(t, replayed.db, versions), queryStrings(t, created.db, versions); !slices.Equal(g, w) || len(w) != len(ms) {
		t.Errorf("recorded migrations\n got %v\nwant %v", g, w)
	}
	for _, table := range queryStrings(t, replayed.db, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name <> 'schema_migrations'`) {
		q := `SELECT count(*) FROM "` + table + `"`
		if w, g := queryStrings(t, replayed.db, q), queryStrings(t, created.db, q); !slices.Equal(g, w) {
			t.Errorf("%s holds %v rows, from the migrations %v", table, g, w)
		}
	}
}
