package crawler

import (
	"context"
	"io"
	"sync"
	"sync/atomic"

	"github.com/openshift-eng/prowcrawl"
)

// limited bounds the requests a crawl has in flight: a listing holds a
// slot while it runs, an opened object until it is closed (a small object
// read ahead is read whole and closed at once; see ahead). It counts the
// requests wanted, in flight or waiting for a slot, by which the crawl
// starts runs (see admit): the crawl makes --concurrency requests at once.
type limited struct {
	prowcrawl.Source
	slots  chan struct{}
	wanted atomic.Int64 // requests in flight or waiting for a slot, and reserved
	eased  signal       // told when wanted goes down
	// reserved are the requests counted in wanted for runs started and
	// not yet asking (see reserve).
	reserved atomic.Int64
}

func limit(src prowcrawl.Source, n int) *limited {
	return &limited{Source: src, slots: make(chan struct{}, n), eased: newSignal()}
}

// reserve counts a request wanted for a run that starts, before its
// goroutine asks for one: the next request asked for takes it over, so
// that runs started at once are counted as they start, not only once
// they have run.
func (l *limited) reserve() {
	l.reserved.Add(1)
	l.wanted.Add(1)
}

func (l *limited) acquire(ctx context.Context) error {
	if !l.takeReserved() {
		l.wanted.Add(1)
	}
	select {
	case l.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		l.ease()
		return context.Cause(ctx)
	}
}

// takeReserved takes over a reserved request, if there is one.
func (l *limited) takeReserved() bool {
	for {
		n := l.reserved.Load()
		if n == 0 {
			return false
		}
		if l.reserved.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

func (l *limited) release() { <-l.slots; l.ease() }

func (l *limited) ease() {
	l.wanted.Add(-1)
	l.eased.notify()
}

// signal tells one waiter that something changed; changes while none
// waits make one notice.
type signal chan struct{}

func newSignal() signal { return make(signal, 1) }

func (s signal) notify() {
	select {
	case s <- struct{}{}:
	default:
	}
}

func (l *limited) List(ctx context.Context, q prowcrawl.Query) ([]prowcrawl.Entry, error) {
	if err := l.acquire(ctx); err != nil {
		return nil, err
	}
	defer l.release()
	return l.Source.List(ctx, q)
}

func (l *limited) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if err := l.acquire(ctx); err != nil {
		return nil, err
	}
	rc, err := l.Source.Open(ctx, name)
	if err != nil {
		l.release()
		return nil, err
	}
	return &slotReader{ReadCloser: rc, release: sync.OnceFunc(l.release)}, nil
}

type slotReader struct {
	io.ReadCloser
	release func()
}

func (s *slotReader) Close() error {
	defer s.release()
	return s.ReadCloser.Close()
}
