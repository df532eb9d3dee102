package main

import (
	"bufio"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// buildIDs walks a value decoded as a float64 JSON reader decodes it (jq
// 1.6, JavaScript) and calls f with every value of a build_id or build key.
func buildIDs(v any, f func(key string, id any)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k == "build_id" || k == "build" {
				f(k, x)
			}
			buildIDs(x, f)
		}
	case []any:
		for _, x := range v {
			buildIDs(x, f)
		}
	}
}

var nineteenDigits = regexp.MustCompile(`^[0-9]{19}$`)

// TestBuildIDsSurviveFloatReaders: every JSON output writes build ids as
// strings, as Prow does, so that a reader that takes numbers as float64
// keeps all 19 digits. Before, export, search, suggest, the assessment and
// the JSON log wrote them as numbers: "...827" came back "...800".
func TestBuildIDsSurviveFloatReaders(t *testing.T) {
	dbPath := demoDB(t)
	outputs := map[string]string{
		"export":                  runOK(t, "export", "--db", dbPath),
		"search --format json":    runOK(t, "search", "i/o timeout", "--format", "json", "--db", dbPath),
		"suggest --format json":   runOK(t, "suggest", "--format", "json", "--db", dbPath),
		"report --assess --json":  runOK(t, "report", "--assess", "pod-network-cross-node", "--format", "json", "--db", dbPath),
		"crawl --log-format json": demoCrawl.stderr,
	}
	for name, out := range outputs {
		seen := 0
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(nil, 64<<20)
		// JSONL (export, the log) or one document (the others).
		docs := []string{out}
		if name == "export" || name == "crawl --log-format json" {
			docs = nil
			for sc.Scan() {
				if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "{") {
					docs = append(docs, l)
				}
			}
		}
		for _, d := range docs {
			var v any
			if err := json.Unmarshal([]byte(d), &v); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			buildIDs(v, func(key string, id any) {
				seen++
				if s, ok := id.(string); !ok || !nineteenDigits.MatchString(s) && !regexp.MustCompile(`^[0-9]+$`).MatchString(s) {
					t.Errorf("%s: %s = %#v, want a string of digits", name, key, id)
				}
			})
		}
		if seen == 0 && name != "crawl --log-format json" {
			t.Errorf("%s: no build id in the output; the test looks for build_id keys", name)
		}
	}
}
