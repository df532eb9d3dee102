package crawler

import (
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift-eng/prowcrawl/mirror"
	"github.com/openshift-eng/prowcrawl/prow"
)

// FuzzRunDir: a presubmit link's body comes from the bucket. Whatever it
// holds, a run directory resolved from it is a clean relative name of the
// bucket that names a run.
func FuzzRunDir(f *testing.F) {
	for _, s := range []string{
		"gs://test-platform-results/pr-logs/pull/openshift_origin/28000/pull-ci-openshift-origin-master-e2e-aws-upgrade/1722000000000000000",
		"pr-logs/pull/28000/job/1\n",
		"gs://b/pr-logs/pull/batch/job/12/",
		"gs://b/pr-logs/pull/../../etc/passwd",
		"gs://b/logs/job/1/../../x",
		"gs://b/pr-logs/pull/a\\b/1/j/2",
		"\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, link string) {
		dir, err := runDir(link)
		if err != nil {
			return
		}
		if !mirror.ValidName(dir) || path.Clean(dir) != dir || !filepath.IsLocal(dir) {
			t.Fatalf("runDir(%q) = %q, not a clean relative name", link, dir)
		}
		if _, ok := prow.ParseRunPath(dir); !ok {
			t.Fatalf("runDir(%q) = %q, not a run directory", link, dir)
		}
		if !strings.HasPrefix(dir, "pr-logs/") {
			t.Fatalf("runDir(%q) = %q, not a presubmit's run", link, dir)
		}
	})
}

// TestRunDirPresubmitsOnly: a presubmit link that names a periodic's run
// (logs/...) is refused, so that the run is not stored twice: once as the
// periodic's, once as a presubmit's.
func TestRunDirPresubmitsOnly(t *testing.T) {
	if dir, err := runDir("gs://test-platform-results/pr-logs/pull/openshift_origin/28000/pull-ci-openshift-origin-master-e2e-aws-upgrade/1722000000000000000"); err != nil ||
		dir != "pr-logs/pull/openshift_origin/28000/pull-ci-openshift-origin-master-e2e-aws-upgrade/1722000000000000000" {
		t.Errorf("a presubmit's link: %q, %v", dir, err)
	}
	_, err := runDir("gs://test-platform-results/logs/periodic-ci-openshift-release-master-ci-4.14-e2e-aws-ovn-upgrade/1722000000000000001")
	if err == nil || !strings.Contains(err.Error(), "not a presubmit's run") {
		t.Errorf("a link to a periodic's run: %v, want it refused", err)
	}
}
