package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/openshift-eng/prowcrawl/db"
)

// lockDB takes the database's writer lock for the command's lifetime: one
// command writes a database at a time (crawl, backfill, analyze, merge), and
// the lock goes with the process, even when it is killed.
func lockDB(ctx context.Context, path string, wait bool) (*db.Lock, error) {
	lock, err := db.AcquireLock(ctx, path, wait)
	if le := (*db.LockedError)(nil); errors.As(err, &le) {
		who := "another crawl"
		if le.PID > 0 {
			who += fmt.Sprintf(" (process %d)", le.PID)
		}
		return nil, usagef("database %s is being written by %s; try again later, or pass --wait", path, who)
	}
	if err != nil {
		return nil, usageError{err}
	}
	return lock, nil
}

// openReader opens a database that a crawl made for a command that only
// reads it (report, status, export, search, suggest): it writes nothing to the file, works
// in a directory it may not write, and adds nothing to a file that is not
// prowcrawl's. Only an older schema is upgraded (upgradeExisting).
func openReader(ctx context.Context, path string, stderr io.Writer) (*db.DB, error) {
	if err := upgradeExisting(ctx, path, stderr); err != nil {
		return nil, err
	}
	store, err := db.OpenReadOnly(ctx, path)
	if err != nil {
		return nil, usageError{err}
	}
	return store, nil
}

// upgradeExisting checks that path is a database a crawl made and brings
// its schema up to date under the writer's lock, closing it again before
// the lock is released (see db.Lock).
func upgradeExisting(ctx context.Context, path string, stderr io.Writer) error {
	if err := statDB(path); err != nil {
		return err
	}
	need, err := db.NeedsMigration(ctx, path)
	switch {
	case errors.Is(err, db.ErrEmpty):
		return usagef("no crawl has written %s yet: run 'prowcrawl crawl' first", path)
	case errors.Is(err, db.ErrForeign):
		return usagef("%s is %v: give the --db of a crawl", path, db.ErrForeign)
	case err != nil:
		return usageError{err}
	case !need:
		return nil
	}
	fmt.Fprintf(stderr, "upgrading the schema of %s (once; a minute or more on a large database)\n", path)
	lock, err := lockDB(ctx, path, true)
	if err != nil {
		return err
	}
	store, err := db.Open(ctx, path)
	if err == nil {
		err = store.Close()
	}
	return errors.Join(usageErr(err), lock.Release())
}

// usageErr makes err, unless nil, a usage error.
func usageErr(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// lockAndOpen takes the writer's lock of the database at path (lockDB)
// and opens it, for a command that changes a database some crawl made
// (analyze, reclassify): a path that holds none is a usage error
// (statDB). closeDB closes the database, then releases the lock.
func lockAndOpen(ctx context.Context, path string, wait bool) (store *db.DB, closeDB func(), err error) {
	lock, err := lockDB(ctx, path, wait)
	if err != nil {
		return nil, nil, err
	}
	if err := statDB(path); err != nil {
		lock.Release()
		return nil, nil, err
	}
	store, err = db.Open(ctx, path)
	if err != nil {
		lock.Release()
		return nil, nil, usageError{err}
	}
	return store, func() {
		store.Close()
		lock.Release()
	}, nil
}

// statDB says, as a usage error, why path cannot be a database: none is
// there, or the path cannot be followed (a symbolic link loop, a directory
// that may not be searched), in those words.
func statDB(path string) error {
	_, err := os.Stat(path)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return usagef("no database at %s: run 'prowcrawl crawl' first", path)
	case errors.Is(err, syscall.ELOOP):
		return usagef("--db %s: a loop of symbolic links", path)
	case errors.Is(err, fs.ErrPermission):
		return usagef("--db %s: permission denied (a directory on the way that may not be searched?)", path)
	}
	return usagef("--db %s: %v", path, err)
}
