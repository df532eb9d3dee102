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

func TestBarRedrawsInPlace(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, "runs")
	clock := time.Unix(0, 0)
	b.now = func() time.Time { return clock }
	b.Start(3)
	b.Add(1) // within 100ms of the last draw: not drawn
	clock = clock.Add(time.Second)
	b.Add(2)
	b.Finish()
	out := buf.String()
	if got := strings.Count(out, "\r"); got != 3 {
		t.Errorf("drew %d times, want 3 (start, rate-limited add skipped, final add, finish): %q", got, out)
	}
	if !strings.HasSuffix(out, "\n") || !strings.Contains(out, "3/3 runs") {
		t.Errorf("final output %q lacks the finished line", out)
	}
}

// TestBarGrows: a total learnt as work goes on shows in the bar.
func TestBarGrows(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, "runs")
	clock := time.Unix(0, 0)
	b.now = func() time.Time { return clock }
	b.Start(0)
	b.Grow(4)
	clock = clock.Add(time.Second)
	b.Add(1)
	clock = clock.Add(time.Second)
	b.Grow(6)
	b.Add(9)
	b.Finish()
	out := buf.String()
	for _, want := range []string{"1/4 runs", "10/10 runs"} {
		if !strings.Contains(out, want) {
			t.Errorf("bar output %q lacks %q", out, want)
		}
	}
}
