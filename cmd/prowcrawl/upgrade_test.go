package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/db"
)

// TestReaderUpgradesUnderLock: a report on a database an older version made
// upgrades its schema only under the writer's lock. While a crawl holds
// the lock the report waits, saying why, and the upgrade happens once the
// lock is free; a database already current is read without the lock.
func TestReaderUpgradesUnderLock(t *testing.T) {
	// The demo's runs in the schema before test_counts (version 3).
	dbPath := oldSchema(t, demoDB(t), 3)
	if need, err := db.NeedsMigration(t.Context(), dbPath); err != nil || !need {
		t.Fatalf("NeedsMigration on the old schema: %v, %v; want true", need, err)
	}

	lock, err := db.AcquireLock(t.Context(), dbPath, false)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	var stdout, stderr bytes.Buffer
	go func() {
		done <- run(t.Context(), []string{"report", "--db", dbPath, "--format", "csv"}, &stdout, &stderr)
	}()
	select {
	case err := <-done:
		t.Fatalf("the report upgraded the schema while a crawl held the lock (err %v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	if countRows(t, dbPath, `SELECT count(*) FROM schema_migrations WHERE version = 4`) != 0 {
		t.Fatal("migration 4 applied while the lock was held")
	}
	lock.Release()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("report after the lock was freed: %v\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the report did not go on once the lock was freed")
	}
	if !strings.Contains(stderr.String(), "upgrading the schema") {
		t.Errorf("stderr %q does not say the report waits to upgrade the schema", stderr.String())
	}
	if !strings.Contains(stdout.String(), "pod-network-cross-node") {
		t.Errorf("report after the upgrade lacks the demo's symptom:\n%s", stdout.String())
	}
	if n := countRows(t, dbPath, `SELECT count(*) FROM test_counts`); n == 0 {
		t.Error("test_counts empty after the upgrade")
	}
	if need, err := db.NeedsMigration(t.Context(), dbPath); err != nil || need {
		t.Fatalf("NeedsMigration after the upgrade: %v, %v; want false", need, err)
	}

	// Current schema: the report reads while a crawl holds the lock.
	lock, err = db.AcquireLock(t.Context(), dbPath, false)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	stderr.Reset()
	if err := run(t.Context(), []string{"status", "--db", dbPath}, &stdout, &stderr); err != nil {
		t.Fatalf("status on a current database during a crawl: %v\n%s", err, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("status on a current database wrote %q to stderr", stderr.String())
	}
}

// oldSchema is a database of schema version (3 or 4) that holds the jobs,
// runs, tests and symptoms of the database at src: what an older prowcrawl
// left.
func oldSchema(t *testing.T, src string, version int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := db.OpenAtVersion(t.Context(), path, version)
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	conn := openSQL(t, path)
	if _, err := conn.Exec(`ATTACH DATABASE ? AS src`, src); err != nil {
		t.Fatal(err)
	}
	// The columns these tables had before migration 0005, parents first.
	for _, c := range []struct{ table, cols string }{
		{"jobs", "name, type, release, from_release, upgrade, platform, network, arch"},
		{"symptoms", "id, title, description, bug, source, active"},
		{"runs", `job, build_id, bucket, path, url, started_at, finished_at, result, release, from_release, upgrade,
	from_version, to_version, upgrade_state, tag, from_tag, pull, fetch_status, fetch_error, objects_read, bytes_read, crawled_at`},
		{"tests", "job, build_id, suite, name, status, duration_s, message"},
		{"run_symptoms", "job, build_id, symptom_id, hits, file, line, excerpt, at"},
	} {
		if _, err := conn.Exec(`INSERT INTO main.` + c.table + ` (` + c.cols + `) SELECT ` + c.cols + ` FROM src.` + c.table); err != nil {
			t.Fatalf("copy %s: %v", c.table, err)
		}
	}
	if _, err := conn.Exec(`DETACH DATABASE src`); err != nil {
		t.Fatal(err)
	}
	return path
}
