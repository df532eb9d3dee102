package main

import (
	"bytes"
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
	dbPath := demoDB(t)
	// Back to the schema before test_counts, with the runs kept.
	old := openSQL(t, dbPath)
	if _, err := old.Exec(`DROP TABLE test_counts; DELETE FROM schema_migrations WHERE version = 4`); err != nil {
		t.Fatal(err)
	}
	old.Close()
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
