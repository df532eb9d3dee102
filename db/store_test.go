package db

import (
	"bytes"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// openTest opens a new database in a temporary directory.
func openTest(t testing.TB) *DB {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "prowcrawl.db"))
}

func openAt(t testing.TB, path string) *DB {
	t.Helper()
	d, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	return d
}

// openRaw opens a second handle on the file, as sqlite3 would: its own
// connection and none of our pragmas, not even a busy timeout.
func openRaw(t testing.TB, path string) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite", dsnPlain(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := raw.Close(); err != nil {
			t.Error(err)
		}
	})
	return raw
}

// queryStrings runs a query of one column and returns its values as text.
func queryStrings(t testing.TB, q interface {
	Query(string, ...any) (*sql.Rows, error)
}, query string, args ...any) []string {
	t.Helper()
	rows, err := q.Query(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		if !s.Valid {
			s.String = "NULL"
		}
		out = append(out, s.String)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func dsnPlain(path string) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath()
}

func TestOpenCreatesContractSchema(t *testing.T) {
	d := openTest(t)
	// The columns of the design's contract, and the extras this schema adds.
	tables := map[string][]string{
		"jobs": {"name", "type", "release", "from_release", "upgrade", "platform", "network", "arch", "topology", "network_stack"},
		"runs": {"job", "build_id", "bucket", "path", "url", "started_at", "finished_at", "result",
			"release", "from_release", "upgrade", "from_version", "to_version", "upgrade_state",
			"tag", "from_tag", "pull", "fetch_status", "fetch_error", "objects_read", "bytes_read", "crawled_at",
			"upgrade_started", "edge", "variant", "fetch_attempts", "given_up_at", "rule_set",
			"overall_result", "cluster_networks", "service_networks"},
		"tests":    {"job", "build_id", "suite", "name", "status", "duration_s", "message"},
		"symptoms": {"id", "title", "description", "bug", "source", "active", "rule_hash", "topology", "not_topology"},
		"run_symptoms": {"job", "build_id", "symptom_id", "hits", "file", "line", "excerpt", "at", "last_at", "rule_hash",
			"run_started_at", "run_result", "run_in_rates", "run_release", "run_from_release", "run_upgrade"},
		"run_errors":        {"job", "build_id", "object", "kind", "message"},
		"crawl_cursors":     {"bucket", "job", "build_id", "started_at", "updated_at"},
		"crawls":            {"id", "started_at", "finished_at", "command", "bucket", "jobs", "new_runs", "updated_runs", "pending", "errors", "objects_read", "bytes_read", "status"},
		"schema_migrations": {"version", "name", "applied_at"},
		"run_disruptions": {"job", "build_id", "file", "backend", "backend_name", "connection", "disrupted_s", "source",
			"run_started_at", "run_result", "run_in_rates", "run_release", "run_from_release", "run_upgrade"},
		"regressions": {"symptom_id", "scope", "scope_key", "status", "comparison", "opened_at", "reopened_at", "reopened",
			"closed_at", "last_seen_at", "first_run", "first_run_url", "sample_label", "sample_runs", "sample_hits",
			"basis_label", "basis_runs", "basis_hits", "p_value"},
	}
	for table, want := range tables {
		t.Run(table, func(t *testing.T) {
			got := queryStrings(t, d.db, `SELECT name FROM pragma_table_info(?) ORDER BY cid`, table)
			if !slices.Equal(got, want) {
				t.Errorf("columns\n got %v\nwant %v", got, want)
			}
			strict := queryStrings(t, d.db, `SELECT strict FROM pragma_table_list WHERE name = ?`, table)
			if !slices.Equal(strict, []string{"1"}) {
				t.Errorf("strict = %v, want [1]", strict)
			}
		})
	}
	pragmas := map[string]string{"journal_mode": "wal", "foreign_keys": "1", "busy_timeout": "5000", "synchronous": "1"}
	for pragma, want := range pragmas {
		if got := queryStrings(t, d.db, "PRAGMA "+pragma); !slices.Equal(got, []string{want}) {
			t.Errorf("PRAGMA %s = %v, want %s", pragma, got, want)
		}
	}
}

func TestOpenAgainIsNoop(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prowcrawl.db")
	const q = `SELECT version || ' ' || name || ' ' || applied_at FROM schema_migrations ORDER BY version`
	first := openAt(t, path)
	before := queryStrings(t, first.db, q)
	if len(before) == 0 || !strings.HasPrefix(before[0], "1 init ") {
		t.Fatalf("schema_migrations = %v, want 1 init first", before)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		d := openAt(t, path)
		if after := queryStrings(t, d.db, q); !slices.Equal(after, before) {
			t.Errorf("schema_migrations after reopening\n got %v\nwant %v", after, before)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("these are notes, not a database\n", 20)), 0o644); err != nil {
		t.Fatal(err)
	}
	newer := filepath.Join(dir, "newer.db")
	d := openAt(t, newer)
	if _, err := d.db.ExecContext(t.Context(), `INSERT INTO schema_migrations VALUES (9999, 'future', '2030-01-01T00:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
		is               error
	}{
		{"not sqlite", notDB, "open db " + notDB + ": file is not a database", ErrNotDatabase},
		{"missing directory", filepath.Join(dir, "missing", "x.db"), "open db " + filepath.Join(dir, "missing", "x.db") + ": directory " + filepath.Join(dir, "missing") + " does not exist", nil},
		{"directory", dir, "open db " + dir + ": not a regular file: it is a directory", ErrNotRegular},
		{"newer schema", newer, "schema version 9999 is newer than this program knows", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Open(t.Context(), tt.path)
			if err == nil {
				d.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %q is not %v", err, tt.is)
			}
		})
	}
}

func TestOpenPathNeedingEscape(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a dir?#%", "prow crawl.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	d := openAt(t, path)
	if d.Path() != path {
		t.Errorf("Path() = %q, want %q", d.Path(), path)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database is not where asked: %v", err)
	}
}

// TestNeedsMigration: a current database needs none; a file that is not a
// database is told apart, so that readers say so instead of waiting.
func TestNeedsMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	d, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if need, err := NeedsMigration(t.Context(), path); err != nil || need {
		t.Errorf("NeedsMigration on a new database: %v, %v; want false", need, err)
	}
	junk := filepath.Join(t.TempDir(), "junk.db")
	if err := os.WriteFile(junk, bytes.Repeat([]byte("not sqlite "), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NeedsMigration(t.Context(), junk); !errors.Is(err, ErrNotDatabase) {
		t.Errorf("NeedsMigration on a text file: %v, want ErrNotDatabase", err)
	}
}
