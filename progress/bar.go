// Package progress draws a one-line progress bar for long work on a
// terminal, in two phases: while the work is being found (jobs listed of
// jobs to list, items found so far, shown as a total that still grows),
// then items done of a known total, with rate and time left. When nothing
// has moved for a while it says what it waits for. It knows nothing of what
// the items are and must not be used when output is not a terminal.
package progress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

const (
	// minRedraw bounds how often events redraw the bar.
	minRedraw = 100 * time.Millisecond
	// tick redraws the bar while nothing happens, so that elapsed times
	// and waits show.
	tick = time.Second
	// stallAfter is how long nothing may move before the bar says what it
	// waits for.
	stallAfter = 3 * time.Second
)

// Bar is a progress bar redrawn in place with carriage returns. Its methods
// may be called from any goroutine.
type Bar struct {
	w     io.Writer
	unit  string
	now   func() time.Time
	timer bool // redraw every tick while started

	mu        sync.Mutex
	started   bool
	listing   bool // the total still grows
	jobs      int  // jobs to list, once known
	jobsKnown bool
	listed    int // jobs listed
	total     int
	done      int
	start     time.Time // of the work
	moved     time.Time // last event
	drawn     time.Time
	waits     map[uint64]wait // requests in flight
	nextWait  uint64
	ticker    *time.Timer
}

type wait struct {
	what  string
	since time.Time
}

// Option configures a Bar.
type Option func(*Bar)

// WithClock makes the bar read time from now and not redraw on its own
// (tests drive it with a recorded clock).
func WithClock(now func() time.Time) Option {
	return func(b *Bar) { b.now, b.timer = now, false }
}

// New returns a bar that writes to w and counts items of the named unit.
func New(w io.Writer, unit string, opts ...Option) *Bar {
	b := &Bar{w: w, unit: unit, now: time.Now, timer: true, waits: make(map[uint64]wait)}
	for _, o := range opts {
		o(b)
	}
	return b
}

// Start begins the listing phase and draws the bar.
func (b *Bar) Start() {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.started, b.listing, b.start, b.moved = true, true, now, now
	if b.timer {
		b.ticker = time.AfterFunc(tick, b.tick)
	}
	b.draw(true)
}

// Jobs adds n jobs to list.
func (b *Bar) Jobs(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.jobs += n
	b.jobsKnown = true
	b.event(true)
}

// JobListed counts a job listed, which adds items to the total.
func (b *Bar) JobListed(items int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.listed++
	b.total += items
	b.event(b.listed == b.jobs)
}

// ListingDone ends the listing phase: from now on the total is final.
func (b *Bar) ListingDone() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.listing = false
	b.event(true)
}

// Add counts n more items done.
func (b *Bar) Add(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done += n
	b.event(!b.listing && b.done >= b.total)
}

// Wait records a request in flight, named by what (an object listing, a
// download); the returned function ends it. While nothing moves, the bar
// names the oldest.
func (b *Bar) Wait(what string) (end func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := b.nextWait
	b.nextWait++
	b.waits[id] = wait{what: what, since: b.now()}
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.waits, id)
	}
}

// Finish draws the final state and ends the line. err is why the work
// ended early (nil when it did not): the line then says how far it got,
// never a full bar.
func (b *Bar) Finish(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ticker != nil {
		b.ticker.Stop()
	}
	b.started = false
	b.drawn = b.now()
	fmt.Fprint(b.w, "\r"+b.finalLine(err)+"\x1b[K\n")
}

// finalLine is the bar's last line: the bar when the work was done,
// else how far it got and why it stopped.
func (b *Bar) finalLine(err error) string {
	if err == nil && !b.listing {
		if b.total == 0 {
			return fmt.Sprintf("nothing to read: no new %s", b.unit)
		}
		return Line(b.done, b.total, b.now().Sub(b.start), b.unit)
	}
	why := "stopped"
	switch {
	case errors.Is(err, context.Canceled):
		why = "interrupted"
	case err != nil:
		why = "stopped by an error"
	}
	if b.listing {
		if !b.jobsKnown {
			return why + " before any job was listed"
		}
		return fmt.Sprintf("%s: %d of %d jobs listed, %d %s read", why, b.listed, b.jobs, b.done, b.unit)
	}
	return fmt.Sprintf("%s: %d of %d %s read", why, b.done, b.total, b.unit)
}

// Writer is w for lines written while the bar is drawn (log lines): each
// write clears the bar's line first and draws the bar again after it, so
// that no line is written onto the bar.
func (b *Bar) Writer(w io.Writer) io.Writer { return barWriter{b: b, w: w} }

type barWriter struct {
	b *Bar
	w io.Writer
}

func (bw barWriter) Write(p []byte) (int, error) {
	b := bw.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started {
		fmt.Fprint(b.w, "\r\x1b[K")
	}
	n, err := bw.w.Write(p)
	if b.started {
		b.draw(true)
	}
	return n, err
}

// tick redraws while started, every tick.
func (b *Bar) tick() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.started {
		return
	}
	b.draw(true)
	b.ticker.Reset(tick)
}

func (b *Bar) event(force bool) {
	b.moved = b.now()
	b.draw(force)
}

func (b *Bar) draw(force bool) {
	now := b.now()
	if !force && now.Sub(b.drawn) < minRedraw {
		return
	}
	b.drawn = now
	s := b.line(now)
	fmt.Fprint(b.w, "\r"+s+"\x1b[K")
}

// line renders the bar's text at now.
func (b *Bar) line(now time.Time) string {
	var s string
	if b.listing {
		s = b.listingLine()
	} else {
		// Items are done while the listing goes on: the rate counts from
		// the start.
		s = Line(b.done, b.total, now.Sub(b.start), b.unit)
	}
	if w, ok := b.oldestWait(); ok && now.Sub(b.moved) >= stallAfter && now.Sub(w.since) >= stallAfter {
		s += fmt.Sprintf("  (waiting %s for %s)", now.Sub(w.since).Round(time.Second), w.what)
	}
	return s
}

// listingLine renders the listing phase: "listing jobs 3/40: 12 of 57+ runs
// read"; the "+" says that the total still grows.
func (b *Bar) listingLine() string {
	if !b.jobsKnown {
		return "listing jobs..."
	}
	s := fmt.Sprintf("listing jobs %d/%d", b.listed, b.jobs)
	// Most of a large crawl is its listing: its rate and time left are
	// by jobs.
	if el := b.now().Sub(b.start).Seconds(); el > 0 && b.listed > 0 {
		r := float64(b.listed) / el
		s += fmt.Sprintf(" (%.1f jobs/s", r)
		if left := b.jobs - b.listed; left > 0 {
			s += ", ETA " + time.Duration(float64(left)/r*float64(time.Second)).Round(time.Second).String()
		}
		s += ")"
	}
	return s + fmt.Sprintf(": %d of %d+ %s read", b.done, b.total, b.unit)
}

func (b *Bar) oldestWait() (wait, bool) {
	var oldest wait
	found := false
	for _, w := range b.waits {
		if !found || w.since.Before(oldest.since) || w.since.Equal(oldest.since) && w.what < oldest.what {
			oldest, found = w, true
		}
	}
	return oldest, found
}

// Line renders a bar of done of a final total, with the rate and time left
// over elapsed: "[=====>     ] 12/40 runs  3.1 runs/s  ETA 9s".
func Line(done, total int, elapsed time.Duration, unit string) string {
	const width = 24
	frac := 1.0
	if total > 0 {
		frac = min(float64(done)/float64(total), 1)
	}
	fill := int(frac * width)
	bar := strings.Repeat("=", fill)
	if fill < width {
		bar += ">" + strings.Repeat(" ", width-fill-1)
	}
	return fmt.Sprintf("[%s] %d/%d %s", bar, done, total, unit) + rate(done, total-done, elapsed, unit)
}

// rate renders "  3.1 runs/s  ETA 9s" for done items over elapsed with left
// to go; nothing before the first item.
func rate(done, left int, elapsed time.Duration, unit string) string {
	secs := elapsed.Seconds()
	if secs <= 0 || done <= 0 {
		return ""
	}
	r := float64(done) / secs
	s := fmt.Sprintf("  %.1f %s/s", r, unit)
	if left > 0 {
		eta := time.Duration(float64(left) / r * float64(time.Second))
		s += "  ETA " + eta.Round(time.Second).String()
	}
	return s
}
