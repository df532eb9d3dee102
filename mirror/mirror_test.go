package mirror

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift-eng/prowcrawl"
)

// TestDirRefusesEscapes never reads outside the directory.
func TestDirRefusesEscapes(t *testing.T) {
	parent := t.TempDir()
	if err := os.WriteFile(filepath.Join(parent, "secret"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "bucket")
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(parent, "secret"), filepath.Join(dir, "logs", "link")); err != nil {
		t.Fatal(err)
	}
	src, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for _, name := range []string{"../secret", "logs/../../secret", "/etc/passwd", `logs\..\..\secret`, "logs/\x00x", "logs/a\nb", "logs/link", "logs"} {
		if rc, err := src.Open(t.Context(), name); err == nil {
			rc.Close()
			t.Errorf("Open(%q) succeeded, want it refused", name)
		}
	}
	if _, err := src.List(t.Context(), prowcrawl.Query{Prefix: "../", Delimiter: "/"}); err == nil {
		t.Error("List of ../ succeeded, want it refused")
	}
}

// FuzzDirOpen: no object name, listed or made up, opens a file outside
// the directory of a local source.
func FuzzDirOpen(f *testing.F) {
	parent := f.TempDir()
	if err := os.WriteFile(filepath.Join(parent, "secret"), []byte("secret"), 0o600); err != nil {
		f.Fatal(err)
	}
	root := filepath.Join(parent, "bucket")
	if err := os.MkdirAll(filepath.Join(root, "logs", "j", "1"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "logs", "j", "1", "started.json"), []byte("{}"), 0o600); err != nil {
		f.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(parent, "secret"), filepath.Join(root, "logs", "link")); err != nil {
		f.Fatal(err)
	}
	src, err := New(root)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { src.Close() })
	for _, s := range []string{"logs/j/1/started.json", "../secret", "logs/../../secret", "logs/link", "/etc/passwd", `logs\..\..\secret`, "logs/j/1/\x00", "./logs/j/1/started.json"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		rc, err := src.Open(t.Context(), name)
		if err != nil {
			return
		}
		defer rc.Close()
		b, _ := io.ReadAll(io.LimitReader(rc, 64))
		if strings.Contains(string(b), "secret") || !ValidName(name) || !filepath.IsLocal(name) {
			t.Fatalf("Open(%q) read %q", name, b)
		}
	})
}
