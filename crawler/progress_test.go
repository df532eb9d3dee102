package crawler

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/mirror"
	"github.com/openshift-eng/prowcrawl/progress"
)

// fakeTerminal records what a progress bar draws, frame by frame.
type fakeTerminal struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (f *fakeTerminal) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.Write(p)
}

func (f *fakeTerminal) frames() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, fr := range strings.Split(f.buf.String(), "\r")[1:] {
		out = append(out, strings.TrimSuffix(strings.TrimSuffix(fr, "\n"), "\x1b[K"))
	}
	return out
}

var (
	listingFrame = regexp.MustCompile(`^listing jobs (\d+)/(\d+)(?: \([0-9.]+ jobs/s(?:, ETA \S+)?\))?: (\d+) of (\d+)\+ runs read`)
	barFrame     = regexp.MustCompile(`^\[[=> ]{24}\] (\d+)/(\d+) runs`)
)

// TestProgressFrames crawls the sample bucket with a progress bar on a
// fake terminal: first the listing phase, jobs listed of the jobs to list
// and a total marked as growing; then, from the end of the listing, one
// total that never changes, reached by the last frame.
func TestProgressFrames(t *testing.T) {
	src, err := mirror.New(sampleDir)
	if err != nil {
		t.Fatal(err)
	}
	var term fakeTerminal
	var mu sync.Mutex
	at := time.Unix(0, 0)
	clock := func() time.Time { // each draw 150 ms later: every event draws
		mu.Lock()
		defer mu.Unlock()
		at = at.Add(150 * time.Millisecond)
		return at
	}
	cfg := shortSample(sampleConfig())
	cfg.Concurrency = 2
	cfg.Progress = progress.New(&term, "runs", progress.WithClock(clock))
	sum, err := New(src, openDB(t), cfg).Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	frames := term.frames()
	// Runs are counted as their batches are written, and how many runs a
	// batch holds depends on timing; the frames every crawl draws are the
	// start, one per job listed, the end of the listing and the last.
	if len(frames) < sum.Jobs+3 || frames[0] != "listing jobs..." {
		t.Fatalf("frames %q", frames)
	}
	runs := sum.New + sum.Updated + sum.Skipped
	listing, final := true, -1
	lastListed, lastFound := 0, 0
	for i, f := range frames[1:] {
		if m := listingFrame.FindStringSubmatch(f); m != nil {
			if !listing {
				t.Fatalf("frame %d %q: the listing phase after the total was final", i+1, f)
			}
			listed, _ := strconv.Atoi(m[1])
			found, _ := strconv.Atoi(m[4])
			if m[2] != fmt.Sprint(sum.Jobs) || listed < lastListed || found < lastFound {
				t.Errorf("frame %d %q: want jobs listed of %d, neither going back", i+1, f, sum.Jobs)
			}
			lastListed, lastFound = listed, found
			continue
		}
		m := barFrame.FindStringSubmatch(f)
		if m == nil {
			t.Fatalf("frame %d %q is neither phase", i+1, f)
		}
		listing = false
		total, _ := strconv.Atoi(m[2])
		if total != runs {
			t.Errorf("frame %d %q: total %d once the listing ended, want the %d runs read, fixed", i+1, f, total, runs)
		}
		final = i + 1
	}
	if lastListed != sum.Jobs || final < 0 {
		t.Errorf("the listing reached %d of %d jobs; bar frames from %d", lastListed, sum.Jobs, final)
	}
	if want := fmt.Sprintf("] %d/%d runs", runs, runs); !strings.Contains(frames[len(frames)-1], want) {
		t.Errorf("last frame %q, want %q", frames[len(frames)-1], want)
	}
}
