package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWritesOnlyItsFiles: what docs/RELIABILITY.md says is written, and
// nothing else: a crawl, a reclassify and every reader leave beside the
// database only the database, its -wal and -shm files, and its default
// cache (NAME-cache); the HTML page goes where --out says.
func TestWritesOnlyItsFiles(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "nightly.db")
	runOK(t, withShortJob("crawl", "--bucket", sampleBucket, "--db", dbPath, "--since", "2019-01-01")...)
	out := filepath.Join(t.TempDir(), "page.html")
	for _, args := range [][]string{
		{"status"}, {"report"}, {"report", "--format", "html", "--out", out}, {"report", "--assess", "pod-network-cross-node"},
		{"report", "--changes"}, {"search", "connection refused"}, {"suggest"}, {"export", "--out", filepath.Join(t.TempDir(), "runs.jsonl")},
		{"reclassify"},
	} {
		runOK(t, append(args, "--db", dbPath)...)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	allowed := []string{"nightly.db", "nightly.db-wal", "nightly.db-shm", "nightly-cache"}
	for _, e := range ents {
		if !slices.Contains(allowed, e.Name()) {
			t.Errorf("%s written beside the database (only %v may be)", e.Name(), allowed)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "nightly-cache")); err != nil {
		t.Errorf("no default cache beside the database: %v", err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("report --out wrote no page: %v", err)
	}
}
