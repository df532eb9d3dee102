package crawler

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/mirror"
)

// TestHTMLInPlaceOfAnArtifact: a JUnit file or a JSON metadata file
// answered with an HTML page (a proxy's or a bucket front's 200) was not
// read: the run is partial, its reason names the file, and the next crawl,
// once the real object is served, reads it whole. Before, the page was a
// parse error, the run stayed complete with the tests of its other files,
// and it was never read again.
func TestHTMLInPlaceOfAnArtifact(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	page := "<!DOCTYPE html>\n<html lang=en><meta charset=utf-8><title>Error 502 (Server Error)!!1</title>"
	dir := fmt.Sprintf("logs/%s/1/", hostileJob)
	junit := dir + "artifacts/e2e-aws-ovn-upgrade/openshift-e2e-test/artifacts/junit/junit_e2e_1.xml"
	files := map[string]string{
		dir + "started.json":  started(t0),
		dir + "finished.json": finished(t0.Add(time.Hour), "FAILURE"),
		dir + "prowjob.json":  page,
		junit:                 page,
		dir + "artifacts/e2e-aws-ovn-upgrade/openshift-e2e-test/artifacts/junit/junit_upgrade_1.xml": junitWithFlake,
	}
	root := writeTree(t, files)
	src, err := mirror.New(root)
	if err != nil {
		t.Fatal(err)
	}
	d := openDB(t)
	cfg := Config{Jobs: upgradeJobs, Since: t0.Add(-time.Hour)}
	if _, err := New(src, d, cfg).Run(t.Context()); !errors.Is(err, ErrRunsFailed) {
		t.Fatalf("crawl: %v, want the run not fully read", err)
	}
	got := query(t, d, `SELECT fetch_status, (SELECT group_concat(kind || ' ' || substr(object, length(r.path) + 2), ',') FROM run_errors e
		WHERE e.job = r.job AND e.build_id = r.build_id), (SELECT count(*) FROM tests t WHERE t.job = r.job AND t.build_id = r.build_id) FROM runs r`)
	if len(got) != 1 || got[0] != "partial|read prowjob.json,read artifacts/e2e-aws-ovn-upgrade/openshift-e2e-test/artifacts/junit/junit_e2e_1.xml|2" {
		t.Fatalf("run %q, want partial with both pages recorded as read problems", got)
	}

	// The objects come back; the next crawl reads the run whole.
	if err := os.WriteFile(filepath.Join(root, junit), []byte(`<testsuite name="e2e"><testcase name="a"/><testcase name="b"/></testsuite>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, dir+"prowjob.json"), []byte(`{"spec":{"type":"periodic","job":"`+hostileJob+`"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if sum, err := New(src, d, cfg).Run(t.Context()); err != nil || sum.Updated != 1 {
		t.Fatalf("second crawl: %v, %+v", err, sum)
	}
	if got := query(t, d, `SELECT fetch_status, (SELECT count(*) FROM tests t WHERE t.job = r.job AND t.build_id = r.build_id) FROM runs r`); got[0] != "complete|4" {
		t.Errorf("after the second crawl %q, want complete with 4 tests", got)
	}
}
