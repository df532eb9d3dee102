package progress

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestLine(t *testing.T) {
	tests := []struct {
		name          string
		done, total   int
		elapsed       time.Duration
		want, without string
	}{
		{name: "empty", done: 0, total: 40, want: "[>                       ] 0/40 runs", without: "/s"},
		{name: "half", done: 20, total: 40, elapsed: 10 * time.Second, want: "[============>           ] 20/40 runs  2.0 runs/s  ETA 10s"},
		{name: "done", done: 40, total: 40, elapsed: 10 * time.Second, want: "[========================] 40/40 runs  4.0 runs/s", without: "ETA"},
		{name: "nothing to do", done: 0, total: 0, want: "[========================] 0/0 runs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Line(tc.done, tc.total, tc.elapsed, "runs")
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("Line = %q, want prefix %q", got, tc.want)
			}
			if tc.without != "" && strings.Contains(got, tc.without) {
				t.Errorf("Line = %q, must not contain %q", got, tc.without)
			}
		})
	}
}

// Frames splits what a bar wrote to a terminal into the lines it drew.
func Frames(out string) []string {
	var frames []string
	for _, f := range strings.Split(out, "\r")[1:] {
		frames = append(frames, strings.TrimSuffix(strings.TrimSuffix(f, "\n"), "\x1b[K"))
	}
	return frames
}

// clock is a recorded clock that moves on by step each time it is read.
type clock struct {
	t    time.Time
	step time.Duration
}

func (c *clock) now() time.Time { c.t = c.t.Add(c.step); return c.t }

// TestBarPhases: the listing phase shows jobs listed of jobs to list, with
// their rate and time left, and a total that grows; once the listing ends the bar shows a final total, with
// rate and time left.
func TestBarPhases(t *testing.T) {
	var buf bytes.Buffer
	c := &clock{t: time.Unix(0, 0), step: 200 * time.Millisecond}
	b := New(&buf, "runs", WithClock(c.now))
	b.Start()
	b.Jobs(2)
	b.JobListed(4)
	b.Add(1)
	b.JobListed(6)
	b.ListingDone()
	b.Add(4)
	b.Add(5)
	b.Finish(nil)
	frames := Frames(buf.String())
	want := []string{
		"listing jobs...",
		"listing jobs 0/2: 0 of 0+ runs read",
		"listing jobs 1/2 (0.7 jobs/s, ETA 1s): 0 of 4+ runs read",
		"listing jobs 1/2 (0.5 jobs/s, ETA 2s): 1 of 4+ runs read",
		"listing jobs 2/2 (0.8 jobs/s): 1 of 10+ runs read",
		"[==>                     ] 1/10 runs",
		"[============>           ] 5/10 runs",
		"[========================] 10/10 runs",
		"[========================] 10/10 runs",
	}
	if len(frames) != len(want) {
		t.Fatalf("frames %q, want %d", frames, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(frames[i], w) {
			t.Errorf("frame %d = %q, want %q...", i, frames[i], w)
		}
	}
	if !strings.Contains(frames[6], "runs/s  ETA ") || strings.Contains(frames[7], "ETA") {
		t.Errorf("frames %q: want a rate and time left while runs remain, none after", frames[6:8])
	}
	if !strings.HasSuffix(buf.String(), "\n") {
		t.Error("the last frame does not end the line")
	}
}

// TestBarSaysWhatItWaitsFor: when nothing moves, the bar names the oldest
// request in flight and how long it has waited.
func TestBarSaysWhatItWaitsFor(t *testing.T) {
	var buf bytes.Buffer
	c := &clock{t: time.Unix(0, 0), step: time.Second}
	b := New(&buf, "runs", WithClock(c.now))
	b.Start()
	end := b.Wait("the listing of logs/")
	b.Wait("the listing of logs/newer/")
	for range 5 {
		b.tickDraw()
	}
	end()
	b.Jobs(1)
	frames := Frames(buf.String())
	last := frames[len(frames)-2]
	if !strings.HasPrefix(last, "listing jobs...  (waiting ") || !strings.HasSuffix(last, "s for the listing of logs/)") {
		t.Errorf("frame %q: want it to name the stalled listing", last)
	}
	if strings.Contains(frames[1], "waiting") {
		t.Errorf("frame %q names a wait too early", frames[1])
	}
	if f := frames[len(frames)-1]; strings.Contains(f, "waiting") {
		t.Errorf("frame %q: once something moved, no wait is named", f)
	}
}

// tickDraw is what the bar's own timer does, without the timer.
func (b *Bar) tickDraw() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.draw(true)
}

// TestBarSaysHowFarItGot: a crawl that stops early (interrupted, or by an
// error) ends with how far it got, never a full bar; one with nothing to
// read says so, not "0/0".
func TestBarSaysHowFarItGot(t *testing.T) {
	last := func(f func(b *Bar)) string {
		var buf bytes.Buffer
		c := &clock{t: time.Unix(0, 0), step: 100 * time.Millisecond}
		b := New(&buf, "runs", WithClock(c.now))
		f(b)
		frames := Frames(buf.String())
		return frames[len(frames)-1]
	}
	for _, c := range []struct {
		name string
		f    func(b *Bar)
		want string
	}{
		{"interrupted while listing", func(b *Bar) {
			b.Start()
			b.Jobs(175)
			for range 33 {
				b.JobListed(11)
			}
			b.Add(350)
			b.Finish(context.Canceled)
		}, "interrupted: 33 of 175 jobs listed, 350 runs read"},
		{"an error after the listing", func(b *Bar) {
			b.Start()
			b.Jobs(2)
			b.JobListed(362)
			b.JobListed(0)
			b.ListingDone()
			b.Add(350)
			b.Finish(errors.New("disk full"))
		}, "stopped by an error: 350 of 362 runs read"},
		{"failed before any job was known", func(b *Bar) {
			b.Start()
			b.Finish(errors.New("no such bucket"))
		}, "stopped by an error before any job was listed"},
		{"nothing new", func(b *Bar) {
			b.Start()
			b.Jobs(1)
			b.JobListed(0)
			b.ListingDone()
			b.Finish(nil)
		}, "nothing to read: no new runs"},
	} {
		if got := last(c.f); got != c.want {
			t.Errorf("%s: last frame %q, want %q", c.name, got, c.want)
		}
	}
}

// TestLogLinesClearTheBar: a line written through Writer while the bar is
// drawn starts on a cleared line and the bar is drawn again after it.
func TestLogLinesClearTheBar(t *testing.T) {
	var buf bytes.Buffer
	c := &clock{t: time.Unix(0, 0), step: 100 * time.Millisecond}
	b := New(&buf, "runs", WithClock(c.now))
	b.Start()
	b.Jobs(3)
	buf.Reset()
	fmt.Fprint(b.Writer(&buf), "time=2026-12-01T23:04:12Z level=WARN msg=\"run not fully read\"\n")
	got := buf.String()
	if !strings.HasPrefix(got, "\r\x1b[Ktime=") || !strings.Contains(got, "read\"\n\rlisting jobs 0/3") {
		t.Errorf("a log line written while the bar shows: %q", got)
	}
	b.Finish(nil)
	buf.Reset()
	fmt.Fprint(b.Writer(&buf), "after\n")
	if buf.String() != "after\n" {
		t.Errorf("a log line after the bar ended: %q", buf.String())
	}
}
