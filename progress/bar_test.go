package progress

import (
	"bytes"
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

// TestBarPhases: the listing phase shows jobs listed of jobs to list and a
// total that grows; once the listing ends the bar shows a final total, with
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
	b.Finish()
	frames := Frames(buf.String())
	want := []string{
		"listing jobs...",
		"listing jobs 0/2: 0 of 0+ runs read",
		"listing jobs 1/2: 0 of 4+ runs read",
		"listing jobs 1/2: 1 of 4+ runs read",
		"listing jobs 2/2: 1 of 10+ runs read",
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
