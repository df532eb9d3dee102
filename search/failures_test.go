package search

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/cache"
)

// TestCachedLogLines: the error-like lines of a cached run's logs (build
// logs and pod logs), none of its JUnit or JSON, and no line and no error
// for a run the cache does not hold.
func TestCachedLogLines(t *testing.T) {
	c, err := cache.Open(filepath.Join(t.TempDir(), "cache"), 0)
	if err != nil {
		t.Fatal(err)
	}
	key := cache.Key{Bucket: "test-platform-results", Path: "logs/periodic-ci-openshift-release-master-ci-4.14-e2e-aws-sdn-upgrade/1700000000000000001"}
	w, err := c.Create(key)
	if err != nil {
		t.Fatal(err)
	}
	w.SetStarted(time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC))
	w.Put("build-log.txt", bytes.NewReader([]byte("INFO[2026-11-20T08:01:02Z] Running step e2e-aws-sdn-upgrade-openshift-e2e-test.\n"+
		"error: failed to execute wrapped command: exit status 1\n")))
	w.Put("artifacts/e2e-aws-sdn-upgrade/gather-extra/artifacts/pods/openshift-sdn_sdn-abcde_sdn.log", bytes.NewReader([]byte(
		"I1120 08:02:03.000000    1 node.go:151] Starting\nE1120 08:03:04.000000    1 proxier.go:1529] Failed to sync endpoints: timed out waiting for the condition\n")))
	w.Put("artifacts/e2e-aws-sdn-upgrade/openshift-e2e-test/artifacts/junit/junit_e2e.xml", bytes.NewReader([]byte(
		`<testsuite><testcase name="x"><failure message="error: not a log line">error: not a log line</failure></testcase></testsuite>`+"\n")))
	w.Put("finished.json", bytes.NewReader([]byte(`{"timestamp":1763629200,"passed":false,"result":"FAILURE","error":"failed"}`)))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := cachedLogLines(t.Context(), c, key, func(file, line string) { got = append(got, file+": "+line) }); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"build-log.txt: error: failed to execute wrapped command: exit status 1",
		"artifacts/e2e-aws-sdn-upgrade/gather-extra/artifacts/pods/openshift-sdn_sdn-abcde_sdn.log: E1120 08:03:04.000000    1 proxier.go:1529] Failed to sync endpoints: timed out waiting for the condition",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("lines\n got %q\nwant %q", got, want)
	}
	got = nil
	missing := cache.Key{Bucket: key.Bucket, Path: key.Path + "0"}
	if err := cachedLogLines(t.Context(), c, missing, func(file, line string) { got = append(got, line) }); err != nil || len(got) != 0 {
		t.Errorf("a run not in the cache: %v, %q", err, got)
	}
}
