//go:build !unix

package db

import "os"

// tryLock cannot lock on this system: every caller gets the lock, and
// crawls must not overlap by other means.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlock(*os.File) error { return nil }
