package db

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// ErrLocked is matched (errors.Is) by the error of AcquireLock when
// another process holds the lock of the database.
var ErrLocked = errors.New("database locked")

// ErrNotRegular is matched (errors.Is) by the error of AcquireLock and Open
// for a database path that names something other than a regular file (a
// directory, a FIFO, a device): opening a FIFO would block until a writer
// came, deaf to signals.
var ErrNotRegular = errors.New("not a regular file")

// LockedError is the error of AcquireLock when another process holds the
// lock: PID is that process, or 0 when it is not known.
type LockedError struct {
	Path string // the database
	PID  int
}

// Error names the database and, when known, the holder of its lock.
func (e *LockedError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("%s is locked by process %d", e.Path, e.PID)
	}
	return e.Path + " is locked by another process"
}

// Is makes LockedError match ErrLocked.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Lock is the advisory lock that one writer at a time holds on a database
// for as long as it runs: flock(2) on the database file itself, where the
// system has it. A lock belongs to the file (its inode), not to a name, so
// every path that reaches the file shares it: a symbolic link, a hard
// link, the same file bind-mounted at a second place (as a container's
// volume gives). The kernel drops the lock when its process ends, however
// it ends, so a killed crawl never leaves a stale lock behind, and no
// other file is made for it.
//
// flock(2) locks are apart from the fcntl(2) locks SQLite takes on the
// same file, but closing any descriptor of a file drops every fcntl lock
// the process holds on it: release the lock only after closing the
// database.
//
// Readers do not take it: SQLite's WAL mode lets them read while a crawl
// writes.
type Lock struct {
	f *os.File
}

// lockPoll is how often a waiting AcquireLock tries again.
const lockPoll = 200 * time.Millisecond

// AcquireLock takes the lock of the database at path, creating an empty
// file when there is none. When another process holds it, AcquireLock
// fails at once with an error that wraps ErrLocked and names that process,
// or, with wait, tries again until the lock is free or ctx ends. A path
// that is not a regular file is refused at once (ErrNotRegular).
func AcquireLock(ctx context.Context, path string, wait bool) (*Lock, error) {
	f, err := openLockFile(path)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if ok {
			return &Lock{f: f}, nil
		}
		if !wait {
			pid := lockHolder(f)
			f.Close()
			return nil, &LockedError{Path: path, PID: pid}
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, context.Cause(ctx)
		case <-time.After(lockPoll):
		}
	}
}

// Holder returns the process that holds the lock of the database at path,
// or 0 when none does or the system does not say.
func Holder(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	return lockHolder(f)
}

// checkRegular refuses a path that exists and is not a regular file,
// before anything opens it. A missing file passes: it is created.
func checkRegular(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return nil // missing, or unreadable: the open says why
	}
	return regular(fi)
}

// regular says what fi is when it is not a regular file.
func regular(fi os.FileInfo) error {
	m := fi.Mode()
	what := ""
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		what = "a directory"
	case m&os.ModeNamedPipe != 0:
		what = "a FIFO"
	case m&os.ModeSocket != 0:
		what = "a socket"
	case m&os.ModeDevice != 0:
		what = "a device"
	default:
		return ErrNotRegular
	}
	return fmt.Errorf("%w: it is %s", ErrNotRegular, what)
}

// Release drops the lock. Call it after closing the database (see Lock).
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := errors.Join(unlock(l.f), l.f.Close())
	l.f = nil
	return err
}
