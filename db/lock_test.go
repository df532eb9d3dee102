package db

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/conc"
)

func TestLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prowcrawl.db")
	first, err := AcquireLock(t.Context(), path, false)
	if err != nil {
		t.Fatal(err)
	}
	// A second holder, here a second open file of the same process, is
	// refused at once and told who holds the lock.
	start := time.Now()
	_, err = AcquireLock(t.Context(), path, false)
	var le *LockedError
	if !errors.Is(err, ErrLocked) || !errors.As(err, &le) || le.PID != os.Getpid() || !strings.Contains(err.Error(), "process "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second lock: %v, want ErrLocked naming this process", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("the refusal took %s", took)
	}

	// Waiting ends with the context...
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if _, err := AcquireLock(ctx, path, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting with a deadline: %v", err)
	}

	// ...or when the holder lets go.
	var wg conc.WaitGroup
	var second *Lock
	var werr error
	wg.Go(func() { second, werr = AcquireLock(t.Context(), path, true) })
	time.Sleep(100 * time.Millisecond)
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if werr != nil {
		t.Fatalf("waiting for the lock: %v", werr)
	}
	if err := second.Release(); err != nil {
		t.Fatal(err)
	}
	if err := second.Release(); err != nil {
		t.Errorf("a second Release: %v", err)
	}
}

func TestLockErrors(t *testing.T) {
	if _, err := AcquireLock(t.Context(), filepath.Join(t.TempDir(), "no", "such", "dir", "x.db"), false); err == nil || errors.Is(err, ErrLocked) {
		t.Errorf("lock in a missing directory: %v", err)
	}
}
