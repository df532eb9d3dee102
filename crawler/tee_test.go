package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/internal/sourcetest"
	"github.com/openshift-eng/prowcrawl/mirror"
)

// TestJUnitScannedWhileParsed: a JUnit file a rule reads is scanned from
// the download it is parsed from. The scan sees the whole file even where
// the XML breaks off (the cases before the break are kept, the break is a
// parse error), and a file over the classification cap is scanned in part
// with a size error, while its tests are still parsed whole.
func TestJUnitScannedWhileParsed(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	cni := "NetworkPluginNotReady message:Network plugin returns error: Missing CNI default network"
	broken := `<testsuite name="e2e" tests="2">
<testcase name="[sig-network] first" time="1"/>
<testcase name="[sig-network] second" time="1"><failure>boom</failure></testcase>
<testcase name="broken" <<< this is no XML
` + strings.Repeat("filler after the break, which the parser never reads\n", 10000) + cni + `
`
	padded := `<testsuite name="e2e" tests="1">
<testcase name="[sig-network] padded" time="1"><system-out>` + strings.Repeat("x", 4096) + `
` + cni + `</system-out></testcase>
</testsuite>
`
	for _, tc := range []struct {
		name     string
		junit    string
		maxBytes int64
		tests    string
		symptom  string
		errors   string
	}{
		{"broken XML", broken, 0, "[sig-network] first|pass\n[sig-network] second|fail", "cni-default-network-missing", "parse"},
		{"over the cap", padded, 1024, "[sig-network] padded|pass", "", "size"},
		{"under the cap", padded, 0, "[sig-network] padded|pass", "cni-default-network-missing", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := "logs/" + hostileJob + "/1/"
			src, err := mirror.New(writeTree(t, map[string]string{
				dir + "started.json":  started(t0),
				dir + "finished.json": finished(t0.Add(time.Hour), "FAILURE"),
				dir + "artifacts/e2e/openshift-e2e-test/artifacts/junit/junit_e2e.xml": tc.junit,
			}))
			if err != nil {
				t.Fatal(err)
			}
			d := openDB(t)
			cfg := Config{Jobs: upgradeJobs, Since: t0.Add(-time.Hour), Rules: builtinRules, MaxObjectBytes: tc.maxBytes}
			if _, err := New(src, d, cfg).Run(t.Context()); err != nil && tc.errors == "" {
				t.Fatal(err)
			}
			if got := strings.Join(query(t, d, `SELECT name, status FROM tests ORDER BY name`), "\n"); got != tc.tests {
				t.Errorf("tests:\n%s\nwant:\n%s", got, tc.tests)
			}
			if got := strings.Join(query(t, d, `SELECT symptom_id FROM run_symptoms`), ","); got != tc.symptom {
				t.Errorf("symptoms %q, want %q", got, tc.symptom)
			}
			if got := strings.Join(query(t, d, `SELECT kind FROM run_errors`), ","); got != tc.errors {
				t.Errorf("run errors %q, want %q", got, tc.errors)
			}
			if got := query(t, d, `SELECT objects_read FROM runs`); len(got) != 1 || got[0] != "3" {
				t.Errorf("objects read %v, want 3: the JUnit file once", got)
			}
		})
	}
}

// failingOpens is inner with the download of one object failing, as a
// bucket that keeps cutting it off would.
func failingOpens(inner prowcrawl.Source, failing string) *sourcetest.Source {
	s := sourcetest.Wrap(inner)
	s.OpenFunc = func(ctx context.Context, name string) (io.ReadCloser, error) {
		if name == failing {
			return nil, fmt.Errorf("read %s: connection reset by peer", name)
		}
		return inner.Open(ctx, name)
	}
	return s
}

// TestPartialRunSaysWhatWasNotRead: a run with a malformed JUnit file and
// a log that could not be downloaded is partial, and its fetch_error names
// the download, not the malformed file recorded before it.
func TestPartialRunSaysWhatWasNotRead(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	dir := "logs/" + hostileJob + "/1/"
	root, err := mirror.New(writeTree(t, map[string]string{
		dir + "started.json":  started(t0),
		dir + "finished.json": finished(t0.Add(time.Hour), "FAILURE"),
		dir + "build-log.txt": "a log\n",
		dir + "artifacts/e2e/openshift-e2e-test/artifacts/junit/junit_e2e.xml": `<testsuite name="e2e"><testcase name="b" <<<`,
	}))
	if err != nil {
		t.Fatal(err)
	}
	d := openDB(t)
	cfg := Config{Jobs: upgradeJobs, Since: t0.Add(-time.Hour), Rules: builtinRules}
	if _, err := New(failingOpens(root, dir+"build-log.txt"), d, cfg).Run(t.Context()); !errors.Is(err, ErrRunsFailed) {
		t.Fatalf("crawl: %v, want ErrRunsFailed", err)
	}
	got := query(t, d, `SELECT fetch_status, fetch_error FROM runs`)
	if len(got) != 1 || !strings.HasPrefix(got[0], "partial|") || !strings.Contains(got[0], "build-log.txt") || !strings.Contains(got[0], "reset") {
		t.Errorf("run %q, want partial, naming build-log.txt's reset", got)
	}
	if kinds := strings.Join(query(t, d, `SELECT kind FROM run_errors ORDER BY kind`), ","); kinds != "parse,read" {
		t.Errorf("run errors %q, want parse,read", kinds)
	}
}
