//go:build !unix

package db

import "os"

// openLockFile opens (or creates) the database file.
func openLockFile(path string) (*os.File, error) {
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o644)
}

// tryLock cannot lock on this system: every caller gets the lock, and
// crawls must not overlap by other means.
func tryLock(*os.File) (bool, error) { return true, nil }

func unlock(*os.File) error { return nil }

func lockHolder(*os.File) int { return 0 }

// checkWritable leaves it to SQLite here.
func checkWritable(string) error { return nil }
