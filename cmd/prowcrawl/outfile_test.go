package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOutWritesOnlyWhatIsOurs: report --out, export --out and export
// --schema write a symbolic link's target (the link stays), write a FIFO
// through to its reader (it stays a FIFO, and the command ends), and refuse
// a directory with one sentence. Before, each was replaced by a regular
// file: the link's page went stale and the FIFO's reader waited forever.
func TestOutWritesOnlyWhatIsOurs(t *testing.T) {
	dbPath := demoDB(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args func(out string) []string
		want string // a text the output holds
	}{
		{"report --out", func(out string) []string { return []string{"report", "--format", "markdown", "--out", out} }, "pod-network-cross-node"},
		{"export --out", func(out string) []string { return []string{"export", "--out", out} }, `"build_id"`},
		{"export --schema", func(out string) []string {
			return []string{"export", "--schema", out, "--out", filepath.Join(dir, "x.jsonl")}
		}, `"overall_result"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			sub := t.TempDir()
			real := filepath.Join(sub, "real")
			link := filepath.Join(sub, "link")
			if err := os.Symlink("real", link); err != nil {
				t.Fatal(err)
			}
			if code, _, stderr := runCmd(t, append(c.args(link), "--db", dbPath)...); code != 0 {
				t.Fatalf("to a symlink: exit %d: %s", code, stderr)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("the link was replaced: %v", err)
			}
			if b, err := os.ReadFile(real); err != nil || !strings.Contains(string(b), c.want) {
				t.Fatalf("the link's target holds %.80q (%v), want %q in it", b, err, c.want)
			}

			fifo := filepath.Join(sub, "fifo")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			read := make(chan string, 1)
			go func() {
				f, err := os.Open(fifo)
				if err != nil {
					read <- ""
					return
				}
				defer f.Close()
				b, _ := io.ReadAll(f)
				read <- string(b)
			}()
			done := make(chan int, 1)
			go func() {
				code, _, _ := runCmd(t, append(c.args(fifo), "--db", dbPath)...)
				done <- code
			}()
			select {
			case code := <-done:
				if code != 0 {
					t.Fatalf("to a FIFO: exit %d", code)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("writing to a FIFO did not end")
			}
			select {
			case got := <-read:
				if !strings.Contains(got, c.want) {
					t.Fatalf("the FIFO's reader read %.80q, want %q in it", got, c.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the FIFO's reader still waits: the output went elsewhere")
			}
			if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
				t.Fatalf("the FIFO was replaced: %v", err)
			}

			code, _, stderr := runCmd(t, append(c.args(sub), "--db", dbPath)...)
			if code == 0 || !strings.Contains(stderr, "is a directory") || strings.Count(stderr, "\n") > 0 {
				t.Fatalf("to a directory: exit %d, %q; want a failure and one sentence", code, stderr)
			}
		})
	}
}

// TestCacheNotAUsersDirectory: --cache naming a directory of the user's
// (here a stand-in for $HOME, with a tmp/ of its own) is refused by crawl
// with one sentence (exit 2) and nothing in it is removed. Before, eviction
// removed every unlocked file older than a minute in DIR/tmp/.
func TestCacheNotAUsersDirectory(t *testing.T) {
	home := t.TempDir()
	draft := filepath.Join(home, "tmp", "draft.txt")
	os.MkdirAll(filepath.Dir(draft), 0o755)
	if err := os.WriteFile(draft, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(draft, old, old)
	code, _, stderr := runCmd(t, "crawl", "--bucket", sampleBucket, "--db", filepath.Join(t.TempDir(), "p.db"), "--since", "2019-01-01", "--cache", home)
	if code != 2 || !strings.Contains(stderr, "not a prowcrawl cache") || strings.Count(stderr, "\n") > 0 {
		t.Errorf("crawl --cache HOME: exit %d, %q; want exit 2 and one sentence", code, stderr)
	}
	if _, err := os.Stat(draft); err != nil {
		t.Errorf("the user's file is gone: %v", err)
	}
}
