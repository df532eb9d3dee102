package crawler

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/gcs"
)

// tokenBucket answers object listings (the JSON API's objects.list) with
// one prefix a page and the next page token next(token): a bucket whose
// tokens go round, or never end.
func tokenBucket(t *testing.T, delay time.Duration, next func(string) string) *atomic.Int64 {
	t.Helper()
	var pages atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/o") {
			http.NotFound(w, r)
			return
		}
		n := pages.Add(1)
		time.Sleep(delay)
		tok := r.URL.Query().Get("pageToken")
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"kind":          "storage#objects",
			"prefixes":      []string{fmt.Sprintf("logs/job-%d-upgrade/", n)},
			"nextPageToken": next(tok),
		})
	}))
	t.Cleanup(srv.Close)
	t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(srv.URL, "http://"))
	return &pages
}

// TestListingBounds: a listing whose page tokens repeat (A, B, A) fails at
// the repeat; one whose tokens never end fails past its page bound, or
// past its time bound while every page still answers in time. Before,
// nothing bounded a whole listing, and the first ran forever.
func TestListingBounds(t *testing.T) {
	cycle := map[string]string{"": "A", "A": "B", "B": "A"}
	tests := []struct {
		name  string
		opts  gcs.Options
		delay time.Duration
		next  func(string) string
		is    error
		pages int64 // at most
	}{
		{"tokens that go round", gcs.Options{}, 0, func(tok string) string { return cycle[tok] }, gcs.ErrListingLoop, 3},
		{"tokens that never end, by pages", gcs.Options{MaxListPages: 50}, 0, func(tok string) string { return tok + "x" }, gcs.ErrListingTooLong, 51},
		{"tokens that never end, by time", gcs.Options{ListTimeout: 300 * time.Millisecond}, 20 * time.Millisecond,
			func(tok string) string { return tok + "x" }, gcs.ErrListingTooLong, 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pages := tokenBucket(t, tc.delay, tc.next)
			tc.opts.MaxAttempts = 1
			src, err := gcs.New(t.Context(), "gs://ci", tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			start := time.Now()
			_, err = src.List(t.Context(), prowcrawl.Query{Prefix: "logs/", Delimiter: "/"})
			if !errors.Is(err, tc.is) {
				t.Fatalf("list: %v, want %v", err, tc.is)
			}
			if n := pages.Load(); n > tc.pages {
				t.Errorf("%d pages asked for, want at most %d", n, tc.pages)
			}
			t.Logf("%v after %d pages in %s", err, pages.Load(), time.Since(start).Round(time.Millisecond))
		})
	}

	// In a crawl, the bucket that cannot be listed stops it with the
	// error, at once.
	tokenBucket(t, 0, func(tok string) string { return cycle[tok] })
	src, err := gcs.New(t.Context(), "gs://ci", gcs.Options{MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := New(src, openDB(t), Config{Jobs: upgradeJobs}).Run(t.Context()); !errors.Is(err, gcs.ErrListingLoop) {
		t.Errorf("crawl: %v, want ErrListingLoop", err)
	}
}
