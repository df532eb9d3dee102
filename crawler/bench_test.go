package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cloud.google.com/go/storage"
	"github.com/fsouza/fake-gcs-server/fakestorage"
	"github.com/sourcegraph/conc/pool"
	"google.golang.org/api/iterator"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/gcs"
	"github.com/openshift-eng/prowcrawl/internal/sourcetest"
)

// BenchmarkCrawlLatency crawls copies of the sample bucket's periodic jobs
// through the emulator with a fixed latency on every request, as a distant
// bucket has, and compares the wall time with the ideal: requests x latency
// / concurrency. It reports the share of that ideal reached.
//
// With answers=replayed, the emulator answers with its own answers to a
// first crawl, recorded (see emulator.record), instead of looking each
// object up by a linear scan: the crawl is then measured against the
// latency, not against the emulator's CPU. With answers=emulator it does
// the lookups.
//
// Both the crawl and the bare client run with the Ps the crawl commands
// give the scheduler (RaiseProcs): twice what -cpu says.
func BenchmarkCrawlLatency(b *testing.B) {
	const latency = 20 * time.Millisecond
	const copies = 4
	var objs []fakestorage.Object
	for _, o := range bucketObjects(b, sampleDir, "bucket") {
		if !strings.HasPrefix(o.Name, "logs/") {
			continue
		}
		for k := range copies {
			c := o
			job, rest, _ := strings.Cut(strings.TrimPrefix(o.Name, "logs/"), "/")
			c.Name = fmt.Sprintf("logs/%s-copy%d/%s", job, k, rest)
			objs = append(objs, c)
		}
	}
	e := newEmulator(b, "bucket", objs)
	e.latency = latency
	src, err := gcs.New(b.Context(), "gs://bucket", gcs.Options{})
	if err != nil {
		b.Fatal(err)
	}
	crawl := func(conc int) (Summary, error) {
		d, err := db.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer d.Close()
		cfg := Config{Jobs: []*regexp.Regexp{regexp.MustCompile("upgrade")}, Since: time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC),
			Concurrency: conc, Rules: builtinRules}
		return New(src, d, cfg).Run(b.Context())
	}
	// The first crawl, untimed and without latency, records the
	// emulator's answers; every crawl must find the runs it found.
	e.latency = 0
	e.counts()
	e.record(true)
	first, err := crawl(32)
	if err != nil {
		b.Fatal(err)
	}
	e.record(false)
	e.mu.Lock()
	queries := e.queries
	e.mu.Unlock()
	_, reads := e.counts()
	e.latency = latency
	// The yardstick: a bare storage client making the crawl's requests
	// (its listings, then its downloads, read whole) 32 at once, through
	// the same emulator, without parsing, classifying or storing.
	client, err := storage.NewClient(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	bkt := client.Bucket("bucket")
	bare := func(ctx context.Context, tl *timeline) error {
		p := pool.New().WithContext(ctx).WithMaxGoroutines(32)
		for _, q := range queries {
			p.Go(func(ctx context.Context) error {
				s := span{start: time.Now(), kind: "list"}
				defer func() { s.end = time.Now(); tl.add(s) }()
				sq := &storage.Query{Prefix: q.Get("prefix"), Delimiter: q.Get("delimiter"), StartOffset: q.Get("startOffset")}
				it := bkt.Objects(ctx, sq)
				for {
					if _, err := it.Next(); errors.Is(err, iterator.Done) {
						return nil
					} else if err != nil {
						return err
					}
				}
			})
		}
		for _, name := range reads {
			p.Go(func(ctx context.Context) error {
				s := span{start: time.Now(), kind: "read"}
				defer func() { s.end = time.Now(); tl.add(s) }()
				r, err := bkt.Object(name).NewReader(ctx)
				if err != nil {
					return err
				}
				defer r.Close()
				_, err = io.Copy(io.Discard, r)
				return err
			})
		}
		return p.Wait()
	}
	for _, answers := range []string{"replayed", "emulator"} {
		b.Run(fmt.Sprintf("answers=%s/bare-client/concurrency=32", answers), func(b *testing.B) {
			e.replayRecorded(answers == "replayed")
			// At the setting prowcrawl crawls with, as the crawl below.
			defer RaiseProcs()()
			var requests int
			var cores, inFlight float64
			var held time.Duration
			for b.Loop() {
				e.mu.Lock()
				before := e.methods["GET"]
				e.mu.Unlock()
				tl := &timeline{}
				m0 := gcNow()
				t0, c0 := time.Now(), cpuTime()
				if err := bare(b.Context(), tl); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				b.Logf("garbage: %s", gcNow().since(m0))
				cores = (cpuTime() - c0).Seconds() / t1.Sub(t0).Seconds()
				inFlight, _ = tl.busy(t0, t1)
				held = tl.held()
				b.Logf("slot held, ms: %s", tl.heldBy())
				e.mu.Lock()
				requests = e.methods["GET"] - before
				e.mu.Unlock()
			}
			wall := b.Elapsed().Seconds() / float64(b.N)
			ideal := float64(requests) * latency.Seconds() / 32
			b.ReportMetric(float64(requests), "requests")
			b.ReportMetric(ideal, "ideal-s")
			b.ReportMetric(wall, "wall-s")
			b.ReportMetric(100*ideal/wall, "%-of-ideal")
			b.ReportMetric(cores, "cores")
			b.ReportMetric(inFlight, "in-flight")
			b.ReportMetric(held.Seconds()*1000, "ms/request")
		})
	}

	for _, bc := range []struct {
		conc     int
		replayed bool
	}{{8, true}, {32, true}, {32, false}} {
		conc := bc.conc
		answers := "emulator"
		if bc.replayed {
			answers = "replayed"
		}
		b.Run(fmt.Sprintf("answers=%s/crawl/concurrency=%d", answers, conc), func(b *testing.B) {
			e.replayRecorded(bc.replayed)
			// As prowcrawl crawl and backfill run it.
			defer RaiseProcs()()
			b.Logf("GOMAXPROCS %d on %d CPUs", runtime.GOMAXPROCS(0), runtime.NumCPU())
			var requests int
			var runs int
			var cores, inFlight float64
			var held time.Duration
			for b.Loop() {
				b.StopTimer()
				d, err := db.Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
				if err != nil {
					b.Fatal(err)
				}
				e.mu.Lock()
				before := e.methods["GET"]
				e.mu.Unlock()
				cfg := Config{Jobs: []*regexp.Regexp{regexp.MustCompile("upgrade")}, Since: time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC),
					Concurrency: conc, Rules: builtinRules}
				tl := &timeline{}
				b.StartTimer()
				m0 := gcNow()
				t0, c0 := time.Now(), cpuTime()
				sum, err := New(tl.source(src), d, cfg).Run(b.Context())
				t1, c1 := time.Now(), cpuTime()
				b.Logf("garbage: %s", gcNow().since(m0))
				b.StopTimer()
				cores = (c1 - c0).Seconds() / t1.Sub(t0).Seconds()
				var tenths []float64
				inFlight, tenths = tl.busy(t0, t1)
				held = tl.held()
				begin, last := tl.bounds()
				b.Logf("requests in flight, by tenth of the crawl's %.2f s: %.1f; the first request after %d ms, the last done %d ms before the end",
					t1.Sub(t0).Seconds(), tenths, begin.Sub(t0).Milliseconds(), t1.Sub(last).Milliseconds())
				_, head := tl.busy(t0, t0.Add(500*time.Millisecond))
				_, tail := tl.busy(t1.Add(-500*time.Millisecond), t1)
				b.Logf("by 50 ms, the first 500 ms: %.1f; the last: %.1f", head, tail)
				b.Logf("slot held, ms: %s", tl.heldBy())
				if err != nil {
					b.Fatal(err)
				}
				e.mu.Lock()
				requests = e.methods["GET"] - before
				e.mu.Unlock()
				runs = sum.New
				d.Close()
				if runs != first.New {
					b.Fatalf("crawled %d runs, the first crawl %d", runs, first.New)
				}
				b.StartTimer()
			}
			wall := b.Elapsed().Seconds() / float64(b.N)
			ideal := float64(requests) * latency.Seconds() / float64(conc)
			b.ReportMetric(float64(runs), "runs")
			b.ReportMetric(inFlight, "in-flight")
			b.ReportMetric(cores, "cores")
			b.ReportMetric(held.Seconds()*1000, "ms/request")
			b.ReportMetric(float64(requests), "requests")
			b.ReportMetric(ideal, "ideal-s")
			b.ReportMetric(wall, "wall-s")
			b.ReportMetric(100*ideal/wall, "%-of-ideal")
		})
	}
}

// timeline records when each request of a crawl holds its slot: a listing
// while it runs, an object from its opening to its closing. It sits inside
// the crawl's request bound, so that the requests it sees in flight are the
// slots busy.
type timeline struct {
	mu    sync.Mutex
	spans []span
}

type span struct {
	start, end time.Time
	kind       string
}

func (tl *timeline) add(s span) {
	tl.mu.Lock()
	tl.spans = append(tl.spans, s)
	tl.mu.Unlock()
}

// source is src with its requests recorded in tl.
func (tl *timeline) source(src prowcrawl.Source) *sourcetest.Source {
	s := sourcetest.Wrap(src)
	s.ListFunc = func(ctx context.Context, q prowcrawl.Query) ([]prowcrawl.Entry, error) {
		s := span{start: time.Now(), kind: "list"}
		defer func() { s.end = time.Now(); tl.add(s) }()
		return src.List(ctx, q)
	}
	s.OpenFunc = func(ctx context.Context, name string) (io.ReadCloser, error) { return tl.open(ctx, src, name) }
	return s
}

func (tl *timeline) open(ctx context.Context, src prowcrawl.Source, name string) (io.ReadCloser, error) {
	s := span{start: time.Now(), kind: "read"}
	rc, err := src.Open(ctx, name)
	if err != nil {
		s.end = time.Now()
		tl.add(s)
		return nil, err
	}
	return &timedReader{ReadCloser: rc, done: sync.OnceFunc(func() { s.end = time.Now(); tl.add(s) })}, nil
}

type timedReader struct {
	io.ReadCloser
	done func()
}

func (t *timedReader) Close() error { defer t.done(); return t.ReadCloser.Close() }

// busy says, of the wall time from start to end, the mean number of
// requests in flight, and, per tenth of the wall time, its mean.
func (tl *timeline) busy(start, end time.Time) (mean float64, tenths []float64) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	type ev struct {
		at time.Time
		d  int
	}
	var evs []ev
	for _, s := range tl.spans {
		evs = append(evs, ev{s.start, 1}, ev{s.end, -1})
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].at.Before(evs[j].at) })
	wall := end.Sub(start)
	tenths = make([]float64, 10)
	var area time.Duration
	n, last := 0, start
	step := wall / 10
	accrue := func(from, to time.Time, n int) {
		for from.Before(to) {
			i := min(int(from.Sub(start)/step), 9)
			edge := start.Add(step * time.Duration(i+1))
			if i == 9 || edge.After(to) {
				edge = to
			}
			tenths[i] += float64(n) * edge.Sub(from).Seconds() / step.Seconds()
			from = edge
		}
	}
	for _, e := range evs {
		at := e.at
		if at.Before(start) {
			at = start
		}
		if at.After(end) {
			at = end
		}
		accrue(last, at, n)
		area += time.Duration(n) * at.Sub(last)
		n += e.d
		last = at
	}
	accrue(last, end, n)
	return area.Seconds() / wall.Seconds(), tenths
}

// bounds is when the first request started and the last ended.
func (tl *timeline) bounds() (first, last time.Time) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	for i, s := range tl.spans {
		if i == 0 || s.start.Before(first) {
			first = s.start
		}
		if s.end.After(last) {
			last = s.end
		}
	}
	return first, last
}

// held is the mean time a request held its slot.
func (tl *timeline) held() time.Duration {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	var sum time.Duration
	for _, s := range tl.spans {
		sum += s.end.Sub(s.start)
	}
	return sum / time.Duration(max(1, len(tl.spans)))
}

// heldBy says how long requests of each kind held their slots: their
// count, mean and percentiles.
func (tl *timeline) heldBy() string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	by := make(map[string][]time.Duration)
	for _, s := range tl.spans {
		by[s.kind] = append(by[s.kind], s.end.Sub(s.start))
	}
	var out []string
	for _, kind := range []string{"list", "read"} {
		ds := by[kind]
		if len(ds) == 0 {
			continue
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		var sum time.Duration
		for _, d := range ds {
			sum += d
		}
		ms := func(d time.Duration) float64 { return d.Seconds() * 1000 }
		at := func(q float64) float64 { return ms(ds[min(len(ds)-1, int(q*float64(len(ds))))]) }
		out = append(out, fmt.Sprintf("%s %d, mean %.1f, p50 %.1f, p90 %.1f, p99 %.1f, max %.1f",
			kind, len(ds), ms(sum/time.Duration(len(ds))), at(0.5), at(0.9), at(0.99), ms(ds[len(ds)-1])))
	}
	return strings.Join(out, "; ")
}

// gcStats are the process's allocations and collections so far.
type gcStats struct {
	bytes  uint64
	cycles uint32
	pause  time.Duration
}

func gcNow() gcStats {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return gcStats{bytes: m.TotalAlloc, cycles: m.NumGC, pause: time.Duration(m.PauseTotalNs)}
}

// since says what was allocated and collected from then to now.
func (m gcStats) since(then gcStats) string {
	return fmt.Sprintf("%.1f MB allocated, %d collections, %.1f ms paused",
		float64(m.bytes-then.bytes)/1e6, m.cycles-then.cycles, (m.pause-then.pause).Seconds()*1000)
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
