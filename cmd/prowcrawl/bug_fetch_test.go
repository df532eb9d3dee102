package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/openshift-eng/prowcrawl/db"
)

// TestBugFetch: with --fetch, a linked run that the database and its cache
// do not hold is read from its bucket (fake-gcs-server serving seed 002's
// run as origin-ci-test, the bucket its old link names), classified in
// memory, and nothing is written to the database.
func TestBugFetch(t *testing.T) {
	const job = "release-openshift-origin-installer-e2e-aws-upgrade"
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "logs", job, "14098"), os.DirFS(filepath.Join(sampleBucket, "logs", job, "14098"))); err != nil {
		t.Fatal(err)
	}
	emulate(t, "origin-ci-test", dir, nil)
	dbPath := filepath.Join(t.TempDir(), "prowcrawl.db")
	d, err := db.Open(t.Context(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	seed := filepath.Join("..", "..", "bugreport", "testdata", "002_0a55aaa13493de37.txt")
	out := runOK(t, "bug", "--format", "json", "--fetch", "--db", dbPath, seed)
	var doc struct {
		Runs []struct {
			BuildID  string   `json:"build_id"`
			ReadFrom string   `json:"read_from"`
			Symptoms []string `json:"symptoms"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(doc.Runs) != 1 || doc.Runs[0].BuildID != "14098" || doc.Runs[0].ReadFrom != "bucket" {
		t.Fatalf("runs %+v, want 14098 read from its bucket", doc.Runs)
	}
	for _, id := range []string{"cni-default-network-missing", "pod-network-cross-node", "sdn-rollout-readiness-loss"} {
		if !slices.Contains(doc.Runs[0].Symptoms, id) {
			t.Errorf("the fetched run's symptoms %v lack %s", doc.Runs[0].Symptoms, id)
		}
	}
	if n := countRows(t, dbPath, `SELECT count(*) FROM runs`); n != 0 {
		t.Errorf("bug wrote %d runs to the database", n)
	}
}
