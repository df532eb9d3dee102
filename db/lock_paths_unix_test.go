//go:build unix

package db

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLockSharedByEveryPath: the lock belongs to the database file, not to
// its name. While one writer holds it through one path, a second is
// refused through a hard link, a symbolic link, a second directory that
// reaches the same file, and a bind mount of the directory (when the test
// may mount); with the old lock beside the path (PATH.lock) each of these
// took a second lock and both wrote.
func TestLockSharedByEveryPath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data", "x.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	d := openAt(t, path)
	d.Close()
	hard := filepath.Join(dir, "hard.db")
	if err := os.Link(path, hard); err != nil {
		t.Fatal(err)
	}
	soft := filepath.Join(dir, "soft.db")
	if err := os.Symlink(path, soft); err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(dir, "second")
	if err := os.Symlink(filepath.Dir(path), second); err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{"hard link": hard, "symbolic link": soft, "second directory": filepath.Join(second, "x.db")}
	mnt := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(filepath.Dir(path), mnt, "", syscall.MS_BIND, ""); err == nil {
		t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
		paths["bind mount"] = filepath.Join(mnt, "x.db")
	} else {
		t.Logf("no bind mount (%v): the other paths only", err)
	}

	for _, first := range []string{path, hard} {
		held, err := AcquireLock(t.Context(), first, false)
		if err != nil {
			t.Fatal(err)
		}
		for name, p := range paths {
			if p == first {
				p = path
			}
			t.Run(name, func(t *testing.T) {
				l, err := AcquireLock(t.Context(), p, false)
				if err == nil {
					l.Release()
					t.Fatalf("locked %s while %s was locked", p, first)
				}
				var le *LockedError
				if !errors.Is(err, ErrLocked) || !errors.As(err, &le) {
					t.Fatalf("lock through %s: %v, want ErrLocked", p, err)
				}
				if le.PID != os.Getpid() {
					t.Errorf("holder %d, want this process %d", le.PID, os.Getpid())
				}
			})
		}
		if got := Holder(soft); got != os.Getpid() {
			t.Errorf("Holder through the symbolic link: %d, want %d", got, os.Getpid())
		}
		if err := held.Release(); err != nil {
			t.Fatal(err)
		}
	}
	if got := Holder(path); got != 0 {
		t.Errorf("Holder after the release: %d, want 0", got)
	}
	// Nothing is made beside the database for the lock.
	ents, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".lock") {
			t.Errorf("lock file %s made beside the database", e.Name())
		}
	}
}

// TestNotRegularRefused: a --db that is a FIFO, a directory or a device
// is refused at once, by the lock and by every open; opening a FIFO would
// have blocked in open(2), deaf to signals.
func TestNotRegularRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.db")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]string{"fifo": fifo, "directory": dir, "device": "/dev/null"} {
		t.Run(name, func(t *testing.T) {
			if l, err := AcquireLock(t.Context(), p, false); !errors.Is(err, ErrNotRegular) {
				l.Release()
				t.Errorf("AcquireLock: %v, want ErrNotRegular", err)
			}
			if d, err := Open(t.Context(), p); !errors.Is(err, ErrNotRegular) {
				if d != nil {
					d.Close()
				}
				t.Errorf("Open: %v, want ErrNotRegular", err)
			}
			if _, err := NeedsMigration(t.Context(), p); !errors.Is(err, ErrNotRegular) {
				t.Errorf("NeedsMigration: %v, want ErrNotRegular", err)
			}
			if d, err := OpenReadOnly(t.Context(), p); !errors.Is(err, ErrNotRegular) {
				if d != nil {
					d.Close()
				}
				t.Errorf("OpenReadOnly: %v, want ErrNotRegular", err)
			}
		})
	}
}
