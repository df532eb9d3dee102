package main

import (
	"context"
	"errors"
	"fmt"
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

// openExisting opens a database that a crawl made; a missing one is a
// usage error that says what to do.
func openExisting(ctx context.Context, path string) (*db.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, usagef("no database at %s: run 'prowcrawl crawl' first", path)
	}
	store, err := db.Open(ctx, path)
	if err != nil {
		return nil, usageError{err}
	}
	return store, nil
}
