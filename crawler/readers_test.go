package crawler

import (
	"context"
	"database/sql"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/internal/sourcetest"
	"github.com/openshift-eng/prowcrawl/mirror"
)

// slowSource is inner with every object it opens delayed.
func slowSource(inner prowcrawl.Source, delay time.Duration) *sourcetest.Source {
	s := sourcetest.Wrap(inner)
	s.OpenFunc = func(ctx context.Context, name string) (io.ReadCloser, error) {
		time.Sleep(delay)
		return inner.Open(ctx, name)
	}
	return s
}

// TestReadersDuringCrawl: analysts reading the database on their own
// connections while a crawl writes it neither block the crawl (one even
// holds a read transaction open throughout) nor ever see a run without
// all of its tests and symptoms.
func TestReadersDuringCrawl(t *testing.T) {
	dir, err := mirror.New(sampleDir)
	if err != nil {
		t.Fatal(err)
	}
	d := openDB(t)
	reader := func() *sql.DB {
		r, err := sql.Open("sqlite", "file:"+d.Path()+"?mode=ro&_pragma=busy_timeout(0)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	// One statement is one snapshot.
	const snapshot = `SELECT r.job || '/' || r.build_id || ' ' ||
		(SELECT count(*) FROM tests t WHERE t.job = r.job AND t.build_id = r.build_id) || ' ' ||
		(SELECT count(*) FROM run_symptoms s WHERE s.job = r.job AND s.build_id = r.build_id)
		FROM runs r`
	read := func(ctx context.Context, r *sql.DB) ([]string, error) {
		rows, err := r.QueryContext(ctx, snapshot)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, rows.Err()
	}

	// A reader that keeps a transaction open for the whole crawl.
	long, err := reader().BeginTx(t.Context(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var before int
	if err := long.QueryRowContext(t.Context(), `SELECT count(*) FROM runs`).Scan(&before); err != nil {
		t.Fatal(err)
	}

	var snapshots [][]string
	var readErr error
	var done atomic.Bool
	var wg conc.WaitGroup
	r := reader()
	wg.Go(func() {
		for !done.Load() {
			rows, err := read(t.Context(), r)
			if err != nil {
				readErr = err
				return
			}
			snapshots = append(snapshots, rows)
			time.Sleep(time.Millisecond)
		}
	})
	cfg := shortSample(sampleConfig())
	cfg.Concurrency = 2
	_, err = New(slowSource(dir, 5*time.Millisecond), d, cfg).Run(t.Context())
	done.Store(true)
	wg.Wait()
	if err != nil {
		t.Fatalf("the crawl beside the readers: %v", err)
	}
	if readErr != nil {
		t.Fatalf("a reader failed: %v", readErr)
	}
	var still int
	if err := long.QueryRowContext(t.Context(), `SELECT count(*) FROM runs`).Scan(&still); err != nil || still != before {
		t.Errorf("the long read transaction saw %d runs, then %d (%v)", before, still, err)
	}
	if err := long.Rollback(); err != nil {
		t.Fatal(err)
	}

	final, err := read(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	whole := make(map[string]bool, len(final))
	for _, row := range final {
		whole[row] = true
	}
	sizes := make(map[int]bool)
	for _, snap := range snapshots {
		sizes[len(snap)] = true
		for _, row := range snap {
			if !whole[row] {
				t.Fatalf("a reader saw %q; the run stored in the end is %q", row, final)
			}
		}
	}
	var partway int
	for n := range sizes {
		if n > 0 && n < len(final) {
			partway++
		}
	}
	t.Logf("%d snapshots during the crawl, of %d distinct sizes (%d between none and all %d runs)", len(snapshots), len(sizes), partway, len(final))
	if partway == 0 {
		t.Errorf("no reader saw the crawl part way: the test proves nothing (sizes %v)", sizes)
	}
}
