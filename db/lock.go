package db

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// ErrLocked is matched (errors.Is) by the error of AcquireLock when
// another process holds the lock of the database.
var ErrLocked = errors.New("database locked")

// LockedError is the error of AcquireLock when another process holds the
// lock: PID is that process, or 0 when it is not known.
type LockedError struct {
	Path string // the lock file
	PID  int
}

// Error names the lock file and, when known, its holder.
func (e *LockedError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("%s is held by process %d", e.Path, e.PID)
	}
	return e.Path + " is held by another process"
}

// Is makes LockedError match ErrLocked.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// Lock is the advisory lock that one writer at a time holds on a database
// for as long as it runs: a file next to the database (PATH.lock), locked
// with flock(2) where the system has it. The kernel drops the lock when
// its process ends, however it ends, so a killed crawl never leaves a
// stale lock behind; the file itself stays, empty of meaning.
//
// Readers do not take it: SQLite's WAL mode lets them read while a crawl
// writes.
type Lock struct {
	f *os.File
}

// lockPoll is how often a waiting AcquireLock tries again.
const lockPoll = 200 * time.Millisecond

// AcquireLock takes the lock of the database at path. When another
// process holds it, AcquireLock fails at once with an error that wraps
// ErrLocked and names that process, or, with wait, tries again until the
// lock is free or ctx ends.
func AcquireLock(ctx context.Context, path string, wait bool) (*Lock, error) {
	name := path + ".lock"
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
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
			// Who holds it, for the message of the next one to try.
			if err := f.Truncate(0); err == nil {
				_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
			}
			return &Lock{f: f}, nil
		}
		if !wait {
			pid := lockHolder(f)
			f.Close()
			return nil, &LockedError{Path: name, PID: pid}
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, context.Cause(ctx)
		case <-time.After(lockPoll):
		}
	}
}

// lockHolder reads the process id the holder wrote, or 0.
func lockHolder(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// Release drops the lock. The lock file stays: removing it would let two
// processes lock two different files of the same name.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := errors.Join(unlock(l.f), l.f.Close())
	l.f = nil
	return err
}
