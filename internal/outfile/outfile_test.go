package outfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func text(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNewAndRegular: a new path is created 0644; an existing file is
// replaced whole, keeping its permissions; a failed write leaves it as it
// was and no temporary file behind.
func TestNewAndRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "report.html")
	if err := Write(p, text("one")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 || read(t, p) != "one" {
		t.Fatalf("new file: %v %q", fi.Mode(), read(t, p))
	}
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, text("two")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 || read(t, p) != "two" {
		t.Fatalf("replaced file: %v %q", fi.Mode(), read(t, p))
	}
	boom := errors.New("boom")
	if err := Write(p, func(w io.Writer) error { io.WriteString(w, "half"); return boom }); !errors.Is(err, boom) {
		t.Fatalf("failed write: %v", err)
	}
	if read(t, p) != "two" {
		t.Fatalf("a failed write changed the file: %q", read(t, p))
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Fatalf("left behind: %v", es)
	}
}

// TestSymlink: the link's target is written and the link stays a link,
// whether the target exists or not; a loop is said as one.
func TestSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "pages", "report.html")
	if err := os.Mkdir(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "latest.html")
	if err := os.Symlink(filepath.Join("pages", "report.html"), link); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"created", "replaced"} {
		if err := Write(link, text(want)); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s: the link is no longer a link: %v", want, err)
		}
		if got := read(t, real); got != want {
			t.Fatalf("%s: target holds %q", want, got)
		}
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink(b, a)
	os.Symlink(a, b)
	if err := Write(a, text("x")); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Fatalf("loop: %v", err)
	}
}

// TestFIFO: a FIFO is written through to its reader, and stays a FIFO.
func TestFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	done := make(chan error, 1)
	go func() { done <- Write(fifo, text("through the pipe")) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("writing the FIFO did not end")
	}
	if s := <-got; s != "through the pipe" {
		t.Fatalf("the reader read %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v %v", fi.Mode(), err)
	}
}

// TestRefused: a directory is refused with one sentence and left alone.
func TestRefused(t *testing.T) {
	dir := t.TempDir()
	err := Write(dir, text("x"))
	if err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("directory: %v", err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatal("the directory was touched")
	}
}
