package prow

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenResult is what a golden file holds: a parser's value or its error.
type goldenResult struct {
	Value any    `json:"value,omitempty"`
	Error string `json:"error,omitempty"`
}

// readTestdata returns the content of testdata/name.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testdataFiles returns the fixture names in testdata matching pattern,
// golden files excluded.
func testdataFiles(t testing.TB, pattern string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range paths {
		if !strings.HasSuffix(p, ".golden.json") {
			names = append(names, filepath.Base(p))
		}
	}
	if len(names) == 0 {
		t.Fatalf("no testdata files match %s", pattern)
	}
	return names
}

// goldenName is the golden file of a fixture: "started.json" ->
// "started.golden.json".
func goldenName(fixture string) string {
	return strings.TrimSuffix(fixture, filepath.Ext(fixture)) + ".golden.json"
}

// checkGolden compares v, as indented JSON, with testdata/name, or rewrites
// the file when -update is set.
func checkGolden(t *testing.T, name string, v any, err error) {
	t.Helper()
	res := goldenResult{Value: v}
	if err != nil {
		res = goldenResult{Error: err.Error()}
	}
	got, mErr := json.MarshalIndent(res, "", "\t")
	if mErr != nil {
		t.Fatal(mErr)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, rErr := os.ReadFile(path)
	if rErr != nil {
		t.Fatalf("%v (run go test -update to create it)", rErr)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the parser's output (run go test -update after checking):\n%s", path, lineDiff(string(want), string(got)))
	}
}

// lineDiff lists the lines that differ between want and got, by position.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want %s\n  got  %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}

func TestGolden(t *testing.T) {
	parsers := []struct {
		pattern string
		parse   func([]byte) (any, error)
	}{
		{"started*.json", func(b []byte) (any, error) { return ParseStarted(b) }},
		{"finished*.json", func(b []byte) (any, error) { return ParseFinished(b) }},
		{"prowjob*.json", func(b []byte) (any, error) { return ParseProwJob(b) }},
		{"clusterversion*.json", func(b []byte) (any, error) { return ParseClusterVersion(b) }},
		{"junit*.xml", func(b []byte) (any, error) { return ParseJUnit(bytes.NewReader(b)) }},
	}
	for _, p := range parsers {
		for _, name := range testdataFiles(t, p.pattern) {
			t.Run(name, func(t *testing.T) {
				v, err := p.parse(readTestdata(t, name))
				checkGolden(t, goldenName(name), v, err)
			})
		}
	}
}

// TestGoldenMerged merges the JUnit files of the fixture run, as the crawler
// does for all the JUnit files of one run.
func TestGoldenMerged(t *testing.T) {
	var all []TestCase
	for _, name := range testdataFiles(t, "junit*.xml") {
		cases, err := ParseJUnit(bytes.NewReader(readTestdata(t, name)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		all = append(all, cases...)
	}
	checkGolden(t, "merged.golden.json", MergeTests(all), nil)
}
