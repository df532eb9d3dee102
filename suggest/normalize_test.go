package suggest

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// goldenCases reads testdata/normalize.txt: "=== name" lines, each followed
// by its text; lines before the first case are comments.
func goldenCases(t *testing.T) (names, texts []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "normalize.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range strings.Split(string(b), "\n=== ")[1:] {
		name, text, _ := strings.Cut(part, "\n")
		names, texts = append(names, name), append(texts, text)
	}
	return names, texts
}

// TestNormalizeGolden: real-looking failure texts of each kind and what
// Normalize makes of them, in testdata/normalize.golden.
func TestNormalizeGolden(t *testing.T) {
	names, texts := goldenCases(t)
	var got strings.Builder
	for i := range names {
		got.WriteString("=== " + names[i] + "\n" + Normalize(texts[i]) + "\n")
	}
	path := filepath.Join("testdata", "normalize.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("Normalize differs from %s (rerun with -update to accept):\n%s", path, got.String())
	}
}
