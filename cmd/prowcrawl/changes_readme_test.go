package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// grownRE is the documentation's walkthrough of report --changes: the commands,
// then what the last one prints, after <!-- output: grown -->.
var grownRE = regexp.MustCompile("(?s)<!-- output: grown -->\\s*```\\n(.*?)```")

// analysisTime is the time of the newest analysis in --changes' first line,
// the one part of its output that is the day it is read.
var analysisTime = regexp.MustCompile(`newest analysis \(\d{4}-\d\d-\d\d \d\d:\d\d UTC,`)

// TestREADMEChanges runs the documentation's walkthrough of report
// --changes as a newcomer would: the demo's crawl, the sample grown by testdata/gen, a second crawl of it, then report
// --changes, whose output must be the one quoted (lines left out as "...";
// the analysis's own time aside).
func TestREADMEChanges(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to run testdata/gen with")
	}
	file, m := findBlock(t, docFiles(t), grownRE)
	if m == nil {
		t.Fatal("neither README.md nor docs/*.md has a <!-- output: grown --> block (the walkthrough of report --changes)")
	}
	var cmds, want []string
	for _, l := range trimLines(m[1]) {
		if strings.HasPrefix(l, "$ ") && len(want) == 0 {
			cmds = append(cmds, strings.TrimPrefix(l, "$ "))
			continue
		}
		want = append(want, l)
	}
	wantCmds := []string{
		"make demo",
		"go run ./testdata/gen -out /tmp/grown -days 5",
		"prowcrawl crawl --bucket /tmp/grown --mirror-of gs://test-platform-results-public --presubmits",
		"prowcrawl report --changes --format markdown",
	}
	if strings.Join(cmds, "\n") != strings.Join(wantCmds, "\n") {
		t.Fatalf("the walkthrough's commands in %s changed; this test runs these:\n%s\n%s:\n%s", file, strings.Join(wantCmds, "\n"), file, strings.Join(cmds, "\n"))
	}

	dir := t.TempDir()
	dbPath := filepath.Join(dir, "prowcrawl.db")
	runOK(t, "crawl", "--bucket", sampleBucket, "--mirror-of", "gs://test-platform-results-public", "--db", dbPath, "--since", "2019-01-01", "--presubmits")
	grown := filepath.Join(dir, "grown")
	gen := exec.Command("go", "run", "./testdata/gen", "-out", grown, "-days", "5")
	gen.Dir = filepath.Join("..", "..")
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("go run ./testdata/gen: %v\n%s", err, out)
	}
	sum := runOK(t, "crawl", "--bucket", grown, "--mirror-of", "gs://test-platform-results-public", "--presubmits", "--db", dbPath)
	if !strings.Contains(sum, " 0 read errors") {
		t.Fatalf("the grown crawl had read errors:\n%s", sum)
	}
	got := trimLines(runOK(t, "report", "--changes", "--format", "markdown", "--db", dbPath))
	for i := range got {
		got[i] = analysisTime.ReplaceAllString(got[i], "newest analysis (TIME,")
	}
	quoted := make([]string, len(want))
	for i, l := range want {
		quoted[i] = analysisTime.ReplaceAllString(l, "newest analysis (TIME,")
	}
	if !matchAbridged(quoted, got) {
		t.Errorf("%s's walkthrough of report --changes quotes an output that now reads (copy it, leaving lines out as \"...\"):\n%s", file, strings.Join(got, "\n"))
	}
}

// demoSummaryRE is the documentation's quote of the summary lines make demo's
// crawl ends with.
var demoSummaryRE = regexp.MustCompile("(?s)<!-- output: make demo -->\\s*```\\n(.*?)```")

// elapsed is how long a crawl or an analysis took, in its summary line.
var elapsed = regexp.MustCompile(` in [0-9.]+(ns|µs|ms|s|m[0-9.]+s)$`)

// TestREADMEDemoSummary: the summary lines the documentation quotes are
// those of the demo's crawl, but for the time it took.
func TestREADMEDemoSummary(t *testing.T) {
	demoDB(t)
	file, m := findBlock(t, docFiles(t), demoSummaryRE)
	if m == nil {
		t.Fatal("neither README.md nor docs/*.md has a <!-- output: make demo --> block (the crawl's summary lines)")
	}
	norm := func(lines []string) []string {
		for i, l := range lines {
			lines[i] = elapsed.ReplaceAllString(l, " in T")
		}
		return lines
	}
	want, got := norm(trimLines(m[1])), norm(trimLines(demoCrawl.stdout))
	if strings.Join(want, "\n") != strings.Join(got, "\n") {
		t.Errorf("%s quotes the demo crawl's summary lines, which now read (copy them, with this machine's times):\n%s", file, demoCrawl.stdout)
	}
}
