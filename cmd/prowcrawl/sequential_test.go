package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSequentialJobNotReread: a job with small sequential build ids (which
// encode no time), crawled once over its whole history and then again,
// with and without --since, reads no object of a run it stored complete:
// the database says when each started.
func TestSequentialJobNotReread(t *testing.T) {
	const bucket = "test-platform-results-public"
	const job = "release-openshift-origin-installer-e2e-aws-upgrade"
	// The job's history: 48 runs, ids 14001 to 14048, one every six hours
	// (enough that finding the first run of a window is a binary search
	// over started.json files); each run as its sample run 14098 is.
	dir := t.TempDir()
	model := filepath.Join(sampleBucket, "logs", job, "14098")
	first := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := range 48 {
		run := filepath.Join(dir, "logs", job, fmt.Sprint(14001+i))
		copyTree(t, model, run)
		at := first.Add(time.Duration(i) * 6 * time.Hour)
		for name, body := range map[string]string{
			"started.json":  fmt.Sprintf(`{"timestamp":%d}`, at.Unix()),
			"finished.json": fmt.Sprintf(`{"timestamp":%d,"passed":true,"result":"SUCCESS"}`, at.Add(2*time.Hour).Unix()),
		} {
			// copyTree links files: the link goes first, or the sample
			// itself would be written.
			if err := os.Remove(filepath.Join(run, name)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(run, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "logs", job, "latest-build.txt"), []byte("14048"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log requestLog
	emulate(t, bucket, dir, log.wrap)
	dbPath := filepath.Join(t.TempDir(), "prowcrawl.db")
	common := []string{"--db", dbPath, "--bucket", "gs://" + bucket, "--job", "^" + job + "$", "--cache", ""}
	const since = "2026-11-07" // the window holds the last 24 runs
	runOK(t, append([]string{"crawl", "--since", since}, common...)...)
	_, reads := log.reset()
	if !strings.Contains(strings.Join(reads, " "), job+"/") {
		t.Fatalf("the first crawl read nothing of %s: the request log is broken (%q)", job, reads)
	}
	stored := countRows(t, dbPath, `SELECT count(*) FROM runs WHERE job = '`+job+`' AND fetch_status = 'complete' AND result <> 'pending'`)
	if stored < 20 {
		t.Fatalf("%d runs stored complete: the test proves little", stored)
	}
	isStored := map[string]bool{}
	for _, id := range queryIDs(t, dbPath, `SELECT build_id FROM runs WHERE job = ?`, job) {
		isStored[fmt.Sprint(id)] = true
	}
	for _, again := range [][]string{{"crawl"}, {"crawl", "--since", since}, {"backfill", "--since", since}} {
		runOK(t, append(again, common...)...)
		_, reads := log.reset()
		for _, r := range reads {
			rest, ok := strings.CutPrefix(r[strings.Index(r, "logs/")+len("logs/"):], job+"/")
			if id, _, _ := strings.Cut(rest, "/"); ok && isStored[id] {
				t.Errorf("%s read %s of a run stored complete", strings.Join(again, " "), r)
			}
		}
	}
}
