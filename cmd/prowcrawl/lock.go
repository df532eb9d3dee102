package main

import (
	"context"
	"errors"
	"fmt"

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
