package crawler

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/openshift-eng/prowcrawl/db"
)

// TestShardsMergeToOneCrawl: crawls split over 1, 2 and 3 shards, merged,
// give the database of one crawl, and every job is in exactly one shard.
func TestShardsMergeToOneCrawl(t *testing.T) {
	src, err := NewDir(sampleDir)
	if err != nil {
		t.Fatal(err)
	}
	whole := openDB(t)
	if _, err := New(src, whole, shortSample(sampleConfig())).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := dumpDB(t, whole)
	jobs := len(query(t, whole, `SELECT name FROM jobs`))

	for _, n := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			dir := t.TempDir()
			out, err := db.Open(t.Context(), filepath.Join(dir, "merged.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			seen := 0
			for i := range n {
				path := filepath.Join(dir, fmt.Sprintf("shard-%d.db", i))
				d, err := db.Open(t.Context(), path)
				if err != nil {
					t.Fatal(err)
				}
				cfg := shortSample(sampleConfig())
				cfg.Shard, cfg.Shards = i, n
				sum, err := New(src, d, cfg).Run(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				seen += sum.Jobs
				if err := d.Close(); err != nil {
					t.Fatal(err)
				}
				if _, err := out.Merge(t.Context(), path); err != nil {
					t.Fatal(err)
				}
			}
			if seen != jobs {
				t.Errorf("the shards crawled %d jobs in all, want each of the %d once", seen, jobs)
			}
			if got := dumpDB(t, out); got != want {
				t.Error("the merged shards differ from one crawl")
			}
		})
	}
}
