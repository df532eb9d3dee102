package crawler

import (
	"context"
	"sync"

	"github.com/openshift-eng/prowcrawl"
)

// budget bounds the bytes a crawl holds: the objects read ahead, the runs
// being read, and the runs read that wait for the writer. Reading ahead
// takes what it can and never waits (an object that does not fit is
// streamed when opened); a run is charged runCharge from its start and,
// once read, whatever it holds, past the bound if need be; and no
// run is started while the bound is reached, so that a writer slower than
// the reading holds the crawl back instead of its memory growing.
type budget struct {
	mu         sync.Mutex
	size, held int64
	room       signal // told when held goes down
}

func newBudget(size int64) *budget {
	return &budget{size: size, room: newSignal()}
}

// TryAcquire takes n bytes if they fit.
func (b *budget) TryAcquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held+n > b.size {
		return false
	}
	b.held += n
	return true
}

// take takes n bytes already held, whether they fit or not.
func (b *budget) take(n int64) {
	b.mu.Lock()
	b.held += n
	b.mu.Unlock()
}

// Release gives n bytes back.
func (b *budget) Release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.held -= n
	b.mu.Unlock()
	b.room.notify()
}

// full says whether the bound is reached.
func (b *budget) full() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held >= b.size
}

// runCharge is what a run being read is charged of the budget, from its
// start until its record is charged instead: about what its listing and
// state hold. With the default budget it allows thousands of runs at
// once, so it never binds; it keeps a small budget a bound on the runs
// started, not only on those read.
const runCharge = 4 << 10

// recordBytes is about what a run read holds until it is stored.
func recordBytes(rec *prowcrawl.Record) int64 {
	if rec == nil {
		return 0
	}
	n := 1 << 10
	for _, t := range rec.Tests {
		n += 64 + len(t.Suite) + len(t.Name) + len(t.Message)
	}
	for _, e := range rec.Errors {
		n += 32 + len(e.Object) + len(e.Message)
	}
	for _, s := range rec.Symptoms {
		n += 128 + len(s.File) + len(s.Excerpt)
	}
	n += 128 * len(rec.Disruptions)
	return int64(n)
}

// admit waits until another run may start: while fewer requests are
// wanted (in flight or waiting for a slot) than twice the concurrency,
// and the bytes held are within their bound. Runs are not bounded by a
// number of their own: the slots keep a queue of requests as deep as
// themselves, so that a slot freed finds a request waiting whatever the
// runs do meanwhile (parse, wait for the writer), and the bytes bound
// what the runs read hold.
func (c *Crawler) admit(ctx context.Context) error {
	for c.lim.wanted.Load() >= int64(2*c.cfg.Concurrency) || c.ahead.full() {
		select {
		case <-c.lim.eased:
		case <-c.ahead.room:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	return nil
}
