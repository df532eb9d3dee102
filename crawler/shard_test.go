package crawler

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/mirror"
)

// TestShardsMergeToOneCrawl: crawls split over 1, 2 and 3 shards, merged,
// give the database of one crawl, and every job is in exactly one shard.
func TestShardsMergeToOneCrawl(t *testing.T) {
	t.Parallel()
	src, err := mirror.New(sampleDir)
	if err != nil {
		t.Fatal(err)
	}
	want := cleanSample(t) // one crawl of the same jobs
	shards := []int{1, 2, 3}
	if testing.Short() {
		shards = shards[1:] // one shard of one is the crawl itself
	}
	for _, n := range shards {
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
			// The merged jobs are those of the one crawl when the dumps
			// agree below.
			if jobs := len(query(t, out, `SELECT name FROM jobs`)); seen != jobs || jobs == 0 {
				t.Errorf("the shards crawled %d jobs in all, want each of the %d once", seen, jobs)
			}
			if got := dumpDB(t, out); got != want {
				t.Error("the merged shards differ from one crawl")
			}
		})
	}
}
