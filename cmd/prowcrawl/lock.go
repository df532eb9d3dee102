package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

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

// openExisting opens a database that a crawl made, for reading; a missing
// one is a usage error that says what to do. A database an older version
// made is upgraded first, and only under the writer's lock (waiting for a
// crawl that holds it), so that an upgrade never races a crawl.
func openExisting(ctx context.Context, path string, stderr io.Writer) (*db.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, usagef("no database at %s: run 'prowcrawl crawl' first", path)
	}
	need, err := db.NeedsMigration(ctx, path)
	if err != nil {
		return nil, usageError{err}
	}
	if need {
		fmt.Fprintf(stderr, "upgrading the schema of %s (once; a minute or more on a large database)\n", path)
		lock, err := lockDB(ctx, path, true)
		if err != nil {
			return nil, err
		}
		defer lock.Release()
	}
	return openLocked(ctx, path)
}

// openLocked opens a database whose writer's lock the command holds.
func openLocked(ctx context.Context, path string) (*db.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, usagef("no database at %s: run 'prowcrawl crawl' first", path)
	}
	store, err := db.Open(ctx, path)
	if err != nil {
		return nil, usageError{err}
	}
	return store, nil
}
