package crawler

import (
	"context"
	"database/sql"
	"io"
	"path"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/internal/sourcetest"
	"github.com/openshift-eng/prowcrawl/mirror"
)

// admitted runs c.admit in the background and says when it returns.
func admitted(t *testing.T, c *Crawler) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.admit(t.Context()) }()
	return done
}

// waitAdmitted fails unless admit returns (without error) soon.
func waitAdmitted(t *testing.T, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: no run admitted", what)
	}
}

// refused fails if admit returns within a while: it must wait.
func refused(t *testing.T, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("%s: a run admitted (%v), want it to wait", what, err)
	case <-time.After(50 * time.Millisecond):
	}
}

// TestAdmitByRequestsWanted checks that a run starts only while fewer
// requests are wanted (in flight or waiting for a slot) than twice the
// concurrency, and as soon as that is so again.
func TestAdmitByRequestsWanted(t *testing.T) {
	c := testCrawler(nil, 2)
	waitAdmitted(t, admitted(t, c), "nothing wanted")
	// Two requests in flight, two waiting for their slots.
	for range 2 {
		if err := c.lim.acquire(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	var waiting sync.WaitGroup
	for range 2 {
		waiting.Go(func() { _ = c.lim.acquire(ctx) })
	}
	for c.lim.wanted.Load() < 4 {
		time.Sleep(time.Millisecond)
	}
	done := admitted(t, c)
	refused(t, done, "4 requests wanted at concurrency 2")
	// One done: its slot goes to a waiting request, three are wanted.
	c.lim.release()
	waitAdmitted(t, done, "3 requests wanted")
	// A request that gives up waiting is no longer wanted.
	cancel()
	waiting.Wait()
	if n := c.lim.wanted.Load(); n != 2 {
		t.Errorf("%d requests wanted after one gave up waiting, want the 2 in flight", n)
	}
}

// TestAdmitByBytesHeld checks that no run starts while the runs read and
// waiting for the writer hold the byte budget, which reading ahead cannot
// then take either, and that one starts once the writer has stored them.
func TestAdmitByBytesHeld(t *testing.T) {
	c := testCrawler(nil, 2)
	c.ahead = newBudget(100)
	c.ahead.take(150) // past the bound: a record is charged what it holds
	done := admitted(t, c)
	refused(t, done, "150 bytes held of 100")
	if c.ahead.TryAcquire(1) {
		t.Error("read ahead took a byte of a budget past its bound")
	}
	c.ahead.Release(50)
	refused(t, done, "100 bytes held of 100")
	c.ahead.Release(1)
	waitAdmitted(t, done, "99 bytes held of 100")
}

// readCounter counts the runs read: each reads its started.json. No
// object is read before open is closed; arrived is closed when the first
// one is asked for.
type readCounter struct {
	*sourcetest.Source
	open, arrived chan struct{}
	once          sync.Once
	mu            sync.Mutex
	runs          int
}

func newReadCounter(inner prowcrawl.Source) *readCounter {
	r := &readCounter{Source: sourcetest.Wrap(inner), open: make(chan struct{}), arrived: make(chan struct{})}
	r.OpenFunc = func(ctx context.Context, name string) (io.ReadCloser, error) {
		r.once.Do(func() { close(r.arrived) })
		select {
		case <-r.open:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		if path.Base(name) == "started.json" {
			r.mu.Lock()
			r.runs++
			r.mu.Unlock()
		}
		return inner.Open(ctx, name)
	}
	return r
}

func (r *readCounter) read() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.runs
}

// TestSlowWriterHoldsBack checks that a writer slower than the reading
// holds the crawl back instead of its memory growing: while another
// process holds the database's write lock, the runs read wait for the
// writer within the byte budget and no more runs start; once the lock is
// released, every run is stored.
func TestSlowWriterHoldsBack(t *testing.T) {
	dir, err := mirror.New(sampleDir)
	if err != nil {
		t.Fatal(err)
	}
	src := newReadCounter(dir)
	t0 := time.Now()
	store := openDB(t)
	cfg := sampleConfig()
	cfg.Jobs = []*regexp.Regexp{regexp.MustCompile(`nightly-4\.14-e2e-aws-sdn-upgrade`)} // 10 runs
	cfg.Concurrency = 2
	c := New(src, store, cfg)
	// About two runs' records (each ~10 KiB: 1 KiB, and 60 tests).
	c.ahead = newBudget(16 << 10)

	// The lock is taken once the crawl has made its first writes (its
	// row in crawls) and asks for its first object, and before any object
	// is read; it is held for at most a second: the writer waits up to 5 s.
	other, err := sql.Open("sqlite", "file:"+store.Path()+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	type outcome struct {
		sum Summary
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		sum, err := c.Run(t.Context())
		done <- outcome{sum, err}
	}()
	select {
	case <-src.arrived:
	case out := <-done:
		t.Fatalf("the crawl ended before reading an object: %+v", out)
	}
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	close(src.open)
	locked := time.Now()
	// The reading has stopped when the budget is full and no run has
	// started for 100 ms. On a loaded machine a crawl can stand still for
	// 100 ms on its own, so a count that stops short of a full budget is
	// watched until the deadline, well within the writer's 5 s.
	last, still, held := -1, 0, false
	for (still < 20 || !held) && time.Since(locked) < 3*time.Second {
		time.Sleep(5 * time.Millisecond)
		if n := src.read(); n != last {
			last, still = n, 0
		} else {
			still++
		}
		held = c.ahead.full()
	}
	t.Logf("locked at %v, stable after %v with %d runs read", locked.Sub(t0), time.Since(t0), last)
	if _, err := conn.ExecContext(t.Context(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if still < 20 || last >= 10 || !held {
		t.Errorf("with the writer held back, %d of 10 runs read (still growing: %v; budget full: %v), want the reading to stop within the budget",
			last, still < 20, held)
	}
	out := <-done
	t.Logf("done after %v", time.Since(t0))
	if out.err != nil {
		t.Fatal(out.err)
	}
	if out.sum.New != 10 || src.read() != 10 {
		t.Errorf("stored %d runs, read %d, want all 10", out.sum.New, src.read())
	}
}
