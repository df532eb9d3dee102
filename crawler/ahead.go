package crawler

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"

	"golang.org/x/sync/semaphore"
)

// opener opens an object for reading, counting it in run (which may be nil).
type opener interface {
	open(ctx context.Context, obj Entry, run *counter) (io.ReadCloser, error)
}

// Reading ahead: the objects a run needs are known from its listing, so
// the small ones are downloaded while the ones before them are parsed, and
// against a distant bucket a run costs a few round trips instead of one per
// object. What is read ahead is held in memory as stored (compressed when
// stored so) and is bounded twice: per run by aheadWindow objects, per
// crawl by a byte budget.
const (
	// aheadMaxSize is the largest object read ahead; larger ones (build
	// logs, large JUnit files) are streamed when their turn comes.
	aheadMaxSize = 1 << 20
	// aheadWindow is how many objects a run reads ahead of its parsing.
	aheadWindow = 8
)

// newAheadBudget bounds the bytes a crawl holds read ahead.
func newAheadBudget(concurrency int) *semaphore.Weighted {
	return semaphore.NewWeighted(int64(max(8, concurrency)) * aheadMaxSize)
}

// ahead reads a run's objects ahead of their parsing, several at once. They
// must be taken in the order given (skipping is allowed), each closed before
// the next is taken.
//
// A read-ahead object holds a request slot only while it downloads, and
// budget until it is closed. Budget is taken in the order of the objects,
// so a run waiting for budget for one object holds none for a later one:
// every run that holds budget can go on parsing and give it back, and runs
// cannot starve each other into a deadlock. Objects too large to read ahead
// are opened when taken, through the crawl's request slots, as without
// reading ahead.
type ahead struct {
	rd     *reader
	items  []*aheadItem
	next   int           // the first item not taken
	window chan struct{} // a token per object read ahead and not yet closed
	budget *semaphore.Weighted
	cancel context.CancelFunc
	done   chan struct{}
}

type aheadItem struct {
	obj   Entry
	ready chan struct{} // closed once the item is read, failed or left to stream
	// Set before ready is closed:
	stream bool   // not read ahead: opened when taken
	data   []byte // the stored bytes
	held   int64  // budget held for data
	err    error
}

// openAhead starts reading objs ahead. The caller must call close when done.
func (c *Crawler) openAhead(ctx context.Context, objs []Entry) *ahead {
	ctx, cancel := context.WithCancel(ctx)
	a := &ahead{rd: c.rd, window: make(chan struct{}, aheadWindow), budget: c.ahead, cancel: cancel, done: make(chan struct{})}
	for _, o := range objs {
		a.items = append(a.items, &aheadItem{obj: o, ready: make(chan struct{})})
	}
	go func() {
		defer close(a.done)
		var wg sync.WaitGroup
		for _, it := range a.items {
			if !a.reserve(ctx, it) {
				it.stream = true
				close(it.ready)
				continue
			}
			wg.Go(func() {
				a.fill(ctx, it)
				close(it.ready)
			})
		}
		wg.Wait()
	}()
	return a
}

// reserve takes a place in the run's window and budget for reading it
// ahead, in the order of the items; false leaves it to be streamed.
func (a *ahead) reserve(ctx context.Context, it *aheadItem) bool {
	if !sizeKnown(it.obj) || it.obj.Size > aheadMaxSize {
		return false
	}
	select {
	case a.window <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	if err := a.budget.Acquire(ctx, it.obj.Size); err != nil {
		<-a.window
		return false
	}
	it.held = it.obj.Size
	return true
}

// fill downloads a reserved item.
func (a *ahead) fill(ctx context.Context, it *aheadItem) {
	rc, err := a.rd.src.Open(ctx, it.obj.Name)
	if err == nil {
		// One byte more than listed, so that a longer body is noticed
		// (by decode's size check) rather than cut to size.
		it.data, err = io.ReadAll(io.LimitReader(rc, it.obj.Size+1))
		rc.Close()
		if err != nil {
			err = fmt.Errorf("read %s: %w", it.obj.Name, err)
		}
	}
	if err != nil {
		a.release(it)
		it.err = err
	}
}

// release gives back what it holds.
func (a *ahead) release(it *aheadItem) {
	if it.held > 0 {
		a.budget.Release(it.held)
		it.held = 0
	}
	it.data = nil
	<-a.window
}

// open takes obj, the next object of the plan or one after it; those
// skipped are dropped unread.
func (a *ahead) open(ctx context.Context, obj Entry, run *counter) (io.ReadCloser, error) {
	for a.next < len(a.items) {
		it := a.items[a.next]
		select {
		case <-it.ready:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		a.next++
		if it.obj.Name != obj.Name {
			if !it.stream && it.err == nil {
				a.release(it)
			}
			continue
		}
		switch {
		case it.stream:
			return a.rd.open(ctx, it.obj, run)
		case it.err != nil:
			return nil, it.err
		}
		o, err := a.rd.decode(it.obj, io.NopCloser(bytes.NewReader(it.data)))
		if err != nil {
			a.release(it)
			return nil, err
		}
		o.count(run)
		o.close = sync.OnceValue(func() error { a.release(it); return nil })
		return o, nil
	}
	// Asking out of order is a bug of the caller.
	return nil, fmt.Errorf("read %s: not among the objects planned for the run, or asked for out of order", obj.Name)
}

// close stops reading ahead and drops whatever was read and not taken.
func (a *ahead) close() {
	a.cancel()
	<-a.done
	for _, it := range a.items[a.next:] {
		if !it.stream && it.err == nil {
			a.release(it)
		}
	}
	a.next = len(a.items)
}
