package db

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCrawlLog(t *testing.T) {
	d := openTest(t)
	start := time.Date(2026, 1, 13, 3, 0, 0, 0, time.UTC)
	id, err := d.StartCrawl(t.Context(), Crawl{StartedAt: start, Command: "crawl", Bucket: "gs://" + bucket})
	if err != nil {
		t.Fatal(err)
	}
	const q = `SELECT concat_ws('|', id, started_at, coalesce(finished_at, 'NULL'), command, bucket,
	coalesce(new_runs, 'NULL'), coalesce(bytes_read, 'NULL'), status) FROM crawls`
	if got, want := queryStrings(t, d.db, q), []string{"1|2026-01-13T03:00:00Z|NULL|crawl|gs://test-platform-results|NULL|NULL|running"}; !slices.Equal(got, want) {
		t.Errorf("after StartCrawl\n got %v\nwant %v", got, want)
	}
	err = d.FinishCrawl(t.Context(), Crawl{ID: id, FinishedAt: start.Add(time.Hour), Jobs: 3, NewRuns: 12,
		UpdatedRuns: 2, Pending: 1, Errors: 1, ObjectsRead: 900, BytesRead: 5 << 30, Status: "partial"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := queryStrings(t, d.db, q), []string{"1|2026-01-13T03:00:00Z|2026-01-13T04:00:00Z|crawl|gs://test-platform-results|12|5368709120|partial"}; !slices.Equal(got, want) {
		t.Errorf("after FinishCrawl\n got %v\nwant %v", got, want)
	}
	if err := d.FinishCrawl(t.Context(), Crawl{ID: 42}); err == nil || !strings.Contains(err.Error(), "no such crawl") {
		t.Errorf("FinishCrawl of an unknown crawl: error = %v", err)
	}
}
