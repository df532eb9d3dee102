// Package progress draws a one-line progress bar for long work on a
// terminal: items done of total, rate and time left. It knows nothing of
// what the items are and must not be used when output is not a terminal.
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Bar is a progress bar redrawn in place with carriage returns.
type Bar struct {
	w     io.Writer
	unit  string
	now   func() time.Time
	mu    sync.Mutex
	total int
	done  int
	start time.Time
	drawn time.Time
}

// New returns a bar that writes to w and counts items of the named unit.
func New(w io.Writer, unit string) *Bar {
	return &Bar{w: w, unit: unit, now: time.Now}
}

// Start sets the total and draws the empty bar.
func (b *Bar) Start(total int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total, b.done, b.start = total, 0, b.now()
	b.draw(true)
}

// Grow adds n items to the total, for work whose size is learnt as it goes.
func (b *Bar) Grow(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += n
	b.draw(false)
}

// Add counts n more items done and redraws at most ten times a second.
func (b *Bar) Add(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done += n
	b.draw(b.done >= b.total)
}

// Finish draws the final state and ends the line.
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.draw(true)
	fmt.Fprintln(b.w)
}

func (b *Bar) draw(force bool) {
	now := b.now()
	if !force && now.Sub(b.drawn) < 100*time.Millisecond {
		return
	}
	b.drawn = now
	fmt.Fprint(b.w, "\r"+Line(b.done, b.total, now.Sub(b.start), b.unit)+"\x1b[K")
}

// Line renders the bar's text: "[=====>     ] 12/40 runs  3.1 runs/s  ETA 9s".
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
	s := fmt.Sprintf("[%s] %d/%d %s", bar, done, total, unit)
	if secs := elapsed.Seconds(); secs > 0 && done > 0 {
		rate := float64(done) / secs
		s += fmt.Sprintf("  %.1f %s/s", rate, unit)
		if left := total - done; left > 0 {
			eta := time.Duration(float64(left) / rate * float64(time.Second))
			s += "  ETA " + eta.Round(time.Second).String()
		}
	}
	return s
}
