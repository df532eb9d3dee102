package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fileState is what a command must leave as it found: the bytes of a file
// and the names in its directory (but SQLite's own -wal and -shm, which a
// reader of a WAL database may make and, when the file is corrupt, leave).
func fileState(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(filepath.Dir(path))
	var names []string
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), "-wal") && !strings.HasSuffix(e.Name(), "-shm") {
			names = append(names, e.Name())
		}
	}
	return string(b) + "|" + strings.Join(names, ",")
}

// foreignDB makes a SQLite database of another program.
func foreignDB(t *testing.T, path string) string {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('mine')`); err != nil {
		t.Fatal(err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// runCmd runs a command in-process and returns its exit status and stderr.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), args, &stdout, &stderr)
	code := exitCode(err, &stderr)
	return code, stdout.String(), strings.TrimSpace(stderr.String())
}

// TestMergeInputsRefused: an input that is empty, another program's or
// corrupt stops merge with one sentence and exit status 1, before anything
// is merged, and is left as it was. Before, an empty input was made into
// a prowcrawl database and merged as an empty shard, a foreign one was
// given prowcrawl's tables, and a corrupt one exited 2 as if the command
// line were wrong.
func TestMergeInputsRefused(t *testing.T) {
	dir := t.TempDir()
	good := demoDB(t)
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	foreign := foreignDB(t, filepath.Join(dir, "foreign.db"))
	corrupt := filepath.Join(dir, "corrupt.db")
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	// Page 1 (the schema) intact, every other page overwritten.
	for i := 4096; i < len(b); i++ {
		b[i] = 0xa5
	}
	if err := os.WriteFile(corrupt, b, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, in, says string }{
		{"empty", empty, "is empty, not a database a crawl wrote; nothing was merged"},
		{"foreign", foreign, "is a SQLite database of another program, not prowcrawl's; nothing was merged"},
		{"corrupt", corrupt, "nothing was merged"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.db")
			before := fileState(t, tc.in)
			code, _, stderr := runCmd(t, "merge", out, good, tc.in)
			if code != 1 || !strings.Contains(stderr, tc.says) || strings.Count(stderr, "\n") > 0 {
				t.Errorf("merge: exit %d, stderr %q; want 1 and one sentence saying %q", code, stderr, tc.says)
			}
			if after := fileState(t, tc.in); after != before {
				t.Error("merge changed its input")
			}
			if _, err := os.Stat(out); err == nil && countRows(t, out, `SELECT count(*) FROM runs`) != 0 {
				t.Error("merge merged the good input before refusing the bad one")
			}
		})
	}
}

// TestReadersWriteNothing: report, status and export never write to the
// database they read. On another program's SQLite file or an empty file
// they refuse with one sentence and leave it as it was (before, status
// added prowcrawl's 18 tables and views to it); on a database of the
// current schema in a directory they may not write, they work (before:
// "attempt to write a readonly database").
func TestReadersWriteNothing(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	foreign := foreignDB(t, filepath.Join(dir, "foreign.db"))
	readers := [][]string{{"status"}, {"report"}, {"report", "--format", "json"}, {"export"}}
	for _, path := range []string{empty, foreign} {
		for _, args := range readers {
			before := fileState(t, path)
			code, _, stderr := runCmd(t, append(args, "--db", path)...)
			if code != 2 || strings.Count(stderr, "\n") > 0 || !strings.Contains(stderr, path) {
				t.Errorf("%s on %s: exit %d, stderr %q; want 2 and one sentence", args, filepath.Base(path), code, stderr)
			}
			if fileState(t, path) != before {
				t.Errorf("%s wrote to %s", args, filepath.Base(path))
			}
		}
	}

	// The database in a read-only directory.
	roDir, ro := readOnlyDemoDB(t)
	// search and suggest read the cache beside it, read-only too.
	readers = append(readers, []string{"search", "etcdserver"}, []string{"suggest"})
	if f, err := os.OpenFile(filepath.Join(roDir, "probe"), os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		f.Close()
		t.Fatal("the read-only directory is writable")
	}
	for _, args := range readers {
		code, stdout, stderr := runCmd(t, append(args, "--db", ro)...)
		if code != 0 || stdout == "" {
			t.Errorf("%s in a read-only directory: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// readOnlyDemoDB is a copy of the demo database (demoDB) in a directory
// the test may not write, and the path of the database in it: a read-only
// bind mount of the copy's directory when the test may mount (root ignores
// file modes), else the copy and its directory made read-only by their
// modes. A root that may not mount skips the test.
func readOnlyDemoDB(t *testing.T) (dir, path string) {
	t.Helper()
	demo := demoDB(t)
	roDir := t.TempDir()
	if err := syscall.Mount(filepath.Dir(demo), roDir, "", syscall.MS_BIND, ""); err == nil {
		t.Cleanup(func() { _ = syscall.Unmount(roDir, syscall.MNT_DETACH) })
		if err := syscall.Mount("", roDir, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
			t.Fatal(err)
		}
	} else if os.Geteuid() == 0 {
		t.Skipf("root, and no read-only bind mount: %v", err)
	} else {
		roDir = filepath.Dir(demo)
		if err := os.Chmod(demo, 0o444); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(roDir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(roDir, 0o755) })
	}
	return roDir, filepath.Join(roDir, filepath.Base(demo))
}

// TestDBNotARegularFile: a --db that is a FIFO, a directory or a device is
// refused at once with one sentence (exit 2), by every command. Before, a
// FIFO blocked status in open(2), deaf to SIGTERM.
func TestDBNotARegularFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.db")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, t.TempDir(), "/dev/null"} {
		for _, args := range [][]string{{"status"}, {"report"}, {"export"}, {"analyze"}, {"crawl", "--bucket", sampleBucket}} {
			done := make(chan string, 1)
			go func() {
				code, _, stderr := runCmd(t, append(args, "--db", path)...)
				done <- fmt.Sprintf("%d %s", code, stderr)
			}()
			select {
			case got := <-done:
				if !strings.HasPrefix(got, "2 prowcrawl: ") || !strings.Contains(got, "not a regular file") || strings.Count(got, "\n") > 0 {
					t.Errorf("%s --db %s: %q, want exit 2 and one sentence saying it is not a regular file", args[0], path, got)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s --db %s still running after 5 s", args[0], path)
			}
		}
	}
}
