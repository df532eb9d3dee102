package suggest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openshift-eng/prowcrawl/internal/testutil"
)

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
	testutil.Golden(t, "./suggest", "normalize.golden", []byte(got.String()))
}

// FuzzNormalize: any bytes normalise to bounded text of trimmed lines
// with single blanks, valid UTF-8 when the input was.
func FuzzNormalize(f *testing.F) {
	_, texts := goldenCases(&testing.T{})
	for _, s := range texts {
		f.Add(s)
	}
	f.Add("\x1b[31mE0112 20:58:46.230123\x1b[0m ::1 [fd02::1]:443 0x\xff")
	f.Fuzz(func(t *testing.T, s string) {
		got := Normalize(s)
		if got == "" {
			return // nothing but blanks
		}
		if strings.Count(got, "\n") >= maxTextLines {
			t.Fatalf("%d lines", strings.Count(got, "\n")+1)
		}
		for _, l := range strings.Split(got, "\n") {
			if l == "" || l != strings.TrimSpace(l) || strings.Contains(l, "  ") {
				t.Fatalf("line %q is blank, untrimmed or has a run of blanks", l)
			}
			if len(l) > maxLineBytes {
				t.Fatalf("line of %d bytes", len(l))
			}
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("valid UTF-8 in, invalid out: %q", got)
		}
	})
}

func TestErrorLike(t *testing.T) {
	for line, want := range map[string]bool{
		"E0112 20:58:46.230123       1 reflector.go:138] watch of *v1.Pod ended":                                  true,
		"I0112 20:58:46.230123       1 reflector.go:138] watch of *v1.Pod ended":                                  false,
		"Jan 12 20:58:46.364 W ns/openshift-controller-manager pod/controller-manager-g9tkl network is not ready": true,
		`Get "https://10.0.61.114:6443/healthz": dial tcp 10.0.61.114:6443: connect: connection REFUSED`:          true,
		"INFO[2026-01-12T20:58:46Z] Running step e2e-aws-ovn-upgrade-openshift-e2e-test.":                         false,
		"started: 0/1/48 \"[sig-network] Services should serve endpoints on same port\"":                          false,
		"  Warning  BackOff  3m  kubelet  Back-off restarting failed container":                                   true,
	} {
		if got := ErrorLike(line); got != want {
			t.Errorf("ErrorLike(%q) = %v, want %v", line, got, want)
		}
	}
}
