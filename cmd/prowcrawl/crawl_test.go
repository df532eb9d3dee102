package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var sampleBucket = filepath.Join("..", "..", "testdata", "bucket")

// shortJob is, under -short, the one job of the sample that the tests whose
// cost grows with every run crawl (18 of its 79 runs, with most of its
// symptoms); otherwise nothing.
func shortJob() string {
	if testing.Short() {
		return "4.14-upgrade-from-stable-4.13"
	}
	return ""
}

// withShortJob appends --job shortJob() to args under -short.
func withShortJob(args ...string) []string {
	if j := shortJob(); j != "" {
		return append(args, "--job", j)
	}
	return args
}

var summaryRE = regexp.MustCompile(`^crawl: (\d+) jobs, (\d+) new runs, (\d+) updated, (\d+) pending; \d+ objects, .+ read in .+\ncrawl: 0 read errors \(0 given up\), 0 with parse problems, 0 outside the range\nanalyze: 7 symptoms, \d+ verdicts; regressions: (\d+) by edge, \d+ by variant, \d+ by job; in .+\n$`)

// TestCrawlCommand runs the demo's commands as a user would, twice.
func TestCrawlCommand(t *testing.T) {
	// The first crawl is demoDB's, into a new database.
	dbPath := demoDB(t)
	m := summaryRE.FindStringSubmatch(demoCrawl.stdout)
	if m == nil || m[1] != "9" || m[2] == "0" || m[5] == "0" {
		t.Fatalf("summary %q, want 9 jobs, new runs and the sample's planted regressions", demoCrawl.stdout)
	}
	if !strings.Contains(demoCrawl.stderr, `"msg":"runs to read"`) {
		t.Errorf("--log-format json --log-level info logged no JSON progress: %q", demoCrawl.stderr)
	}
	if strings.Contains(demoCrawl.stderr, "\r") {
		t.Error("drew a progress bar although stderr is not a terminal")
	}

	args := slices.Clone(demoCrawl.args)
	args[slices.Index(args, "--db")+1] = dbPath
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), args, &stdout, &stderr); err != nil {
		t.Fatalf("second crawl: %v", err)
	}
	m = summaryRE.FindStringSubmatch(stdout.String())
	if m == nil || m[2] != "0" || m[3] != m[4] {
		t.Errorf("second summary %q, want no new runs and only pending runs updated", stdout.String())
	}

	stdout.Reset()
	if err := run(t.Context(), []string{"status", "--db", dbPath, "--runs", "5"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	// A directory mirrors the public bucket unless told otherwise: its
	// runs link to that bucket's Prow pages.
	for _, want := range []string{"4.13->4.14 minor", "release-openshift-origin-installer-e2e-aws-upgrade", "last crawl of test-platform-results-public: ok",
		"  https://prow.ci.openshift.org/view/gs/test-platform-results-public/logs/periodic-ci-openshift-release-master-"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("status output lacks %q:\n%s", want, stdout.String())
		}
	}
}

// TestCrawlInterrupted: an interrupted crawl exits 1 with one sentence.
func TestCrawlInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var stdout, stderr bytes.Buffer
	err := run(ctx, []string{"crawl", "--bucket", sampleBucket, "--db", filepath.Join(t.TempDir(), "x.db")}, &stdout, &stderr)
	if code := exitCode(err, &stderr); code != 1 {
		t.Fatalf("exit %d (err %v), want 1", code, err)
	}
	if got := strings.TrimSpace(stderr.String()); got != "prowcrawl: interrupted; runs read so far are stored" {
		t.Errorf("stderr %q, want one sentence", got)
	}
}
