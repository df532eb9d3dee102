//go:build unix

package db

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// openLockFile opens (or creates) the database file to lock it. O_NONBLOCK
// keeps open(2) from waiting on a FIFO put there between the check and
// the open; what was opened is checked again.
func openLockFile(path string) (*os.File, error) {
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = regular(fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// tryLock takes an exclusive flock on f without waiting.
func tryLock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		}
		return false, err
	}
}

func unlock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}

// lockHolder finds the process holding a flock on f's file in /proc/locks
// (Linux), by the file's device and inode; 0 when it cannot tell.
func lockHolder(f *os.File) int {
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	dev := uint64(st.Dev)
	major := (dev>>8)&0xfff | (dev>>32)&^uint64(0xfff)
	minor := dev&0xff | (dev>>12)&^uint64(0xff)
	want := fmt.Sprintf("%02x:%02x:%d", major, minor, uint64(st.Ino))
	locks, err := os.Open("/proc/locks")
	if err != nil {
		return 0
	}
	defer locks.Close()
	sc := bufio.NewScanner(locks)
	for sc.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234567 0 EOF"; a
		// waiter's line has "->" after the number.
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" || fields[2] == "->" {
			continue
		}
		if !sameFile(fields[5], want) {
			continue
		}
		if pid, err := strconv.Atoi(fields[4]); err == nil && pid > 0 {
			return pid
		}
	}
	return 0
}

// sameFile compares /proc/locks' "MAJ:MIN:INODE" with want, however many
// hex digits the kernel gives the device numbers.
func sameFile(got, want string) bool {
	g, w := strings.Split(got, ":"), strings.Split(want, ":")
	if len(g) != 3 || len(w) != 3 || g[2] != w[2] {
		return false
	}
	for i := range 2 {
		a, err1 := strconv.ParseUint(g[i], 16, 64)
		b, err2 := strconv.ParseUint(w[i], 16, 64)
		if err1 != nil || err2 != nil || a != b {
			return false
		}
	}
	return true
}

// checkWritable refuses, with ErrReadOnly, a database whose file or
// directory may not be written, before SQLite opens it read-only without a
// word and fails at the first write.
func checkWritable(path string) error {
	dir := filepath.Dir(path)
	for _, p := range []string{path, dir} {
		err := syscall.Access(p, 2) // W_OK
		switch {
		case err == nil, errors.Is(err, syscall.ENOENT) && p == path:
			continue
		case errors.Is(err, syscall.EROFS), errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
			what := "the database"
			if p == dir {
				what = "its directory " + dir + " (where the -wal and -shm files go)"
			}
			return fmt.Errorf("%s is %w: %s may not be written; a crawl, analyze, reclassify and merge write it (report, status, export, search and suggest only read)", path, ErrReadOnly, what)
		}
	}
	return nil
}
