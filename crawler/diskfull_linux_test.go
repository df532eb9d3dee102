package crawler

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/mirror"
)

// TestDiskFullCountsWhatWasCommitted: a crawl onto a disk that fills (a
// tmpfs with 1 MiB left, which the sample's database outgrows) stops with the
// error, and its summary and its row in crawls count only the runs whose
// transactions committed: before, they counted the runs of the batch that
// was rolled back (37 new against 24 stored). The cursor is not NULL
// where a run was stored. Needs the right to mount (root); skipped without.
func TestDiskFullCountsWhatWasCommitted(t *testing.T) {
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=16m"); err != nil {
		t.Skipf("cannot mount a small tmpfs: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(mnt, syscall.MNT_DETACH) })
	d, err := db.Open(t.Context(), filepath.Join(mnt, "full.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	// Ballast leaves 1 MiB free once the schema is made.
	var fs syscall.Statfs_t
	if err := syscall.Statfs(mnt, &fs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mnt, "ballast"), make([]byte, int64(fs.Bavail)*fs.Bsize-1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := mirror.New(sampleDir)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := New(src, d, sampleConfig()).Run(t.Context())
	if err == nil || errors.Is(err, ErrRunsFailed) {
		t.Fatalf("crawl onto a full disk: %v, %+v; want the write error", err, sum)
	}
	t.Logf("crawl onto a full disk: %v; %+v", err, sum)
	stored := query(t, d, `SELECT count(*), count(CASE WHEN result = 'pending' THEN 1 END), count(CASE WHEN fetch_status <> 'complete' THEN 1 END) FROM runs`)
	if want := fmt.Sprintf("%d|%d|%d", sum.New, sum.Pending, sum.Errors); stored[0] != want {
		t.Errorf("stored (runs|pending|errors) %s, the summary says %s", stored[0], want)
	}
	if sum.New == 0 {
		t.Error("nothing was stored before the disk filled: the test shows nothing")
	}
	logged := query(t, d, `SELECT coalesce(new_runs, -1), status FROM crawls`)
	if len(logged) != 1 || logged[0] != fmt.Sprintf("%d|failed", sum.New) {
		t.Errorf("crawls row %q, want %d new runs, failed", logged, sum.New)
	}
	if got := query(t, d, `SELECT count(*) FROM crawl_cursors WHERE started_at IS NULL`); got[0] != "0" {
		t.Errorf("%s cursors without started_at", got[0])
	}
}
