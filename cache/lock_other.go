//go:build !unix

package cache

import "os"

// tryLock cannot lock here: a temporary file is then taken for a dead
// writer's once it is older than tempGrace and unchanged.
func tryLock(*os.File) (bool, error) { return true, nil }

// openRegular opens name for reading; Open has checked that it is a
// regular file.
func openRegular(name string) (*os.File, error) { return os.Open(name) }
