package main

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openshift-eng/prowcrawl/report"
)

// TestOutputsFit120: on make demo's database every table a person reads
// fits 120 columns (what a file or a pipe gets; a terminal gets its own
// width), but a link, which is never cut: on a line of its own, or last
// on its line after a short lead. --wide keeps the long lines.
func TestOutputsFit120(t *testing.T) {
	dbPath := demoDB(t)
	for _, args := range [][]string{
		{"status", "--runs", "40"},
		{"report"},
		{"report", "--by", "job"},
		{"report", "--by", "variant"},
		{"report", "--by", "presubmit"},
		{"report", "--changes"},
		{"search", "i/o timeout"},
		{"suggest", "--top", "5"},
	} {
		out := runOK(t, append(args, "--db", dbPath)...)
		for line := range strings.Lines(out) {
			line = strings.TrimRight(line, "\n")
			// A path the user gave is as long as it is, as a link is.
			if n := utf8.RuneCountInString(strings.ReplaceAll(line, filepath.Dir(dbPath), "DIR")); n > report.DefaultWidth && !linkLast(line) {
				t.Errorf("%s: a line of %d columns:\n%s", strings.Join(args, " "), n, line)
			}
		}
		wide := runOK(t, append(args, "--db", dbPath, "--wide")...)
		if widest(wide) <= report.DefaultWidth && args[0] != "report" {
			t.Errorf("%s --wide: no line wider than %d columns", strings.Join(args, " "), report.DefaultWidth)
		}
	}
}

// linkLast says whether a line's width is a link's: the line is a link,
// or ends with one after at most 40 columns.
func linkLast(line string) bool {
	i := strings.Index(line, "https://")
	return i >= 0 && i <= 40 && !strings.Contains(line[i:], " ")
}

func widest(s string) int {
	n := 0
	for line := range strings.Lines(s) {
		n = max(n, utf8.RuneCountInString(strings.TrimRight(line, "\n")))
	}
	return n
}
