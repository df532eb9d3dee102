package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/storage"
	"github.com/fsouza/fake-gcs-server/fakestorage"
	"github.com/sourcegraph/conc/pool"
	"google.golang.org/api/iterator"

	"github.com/openshift-eng/prowcrawl/db"
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
	src, err := NewGCS(b.Context(), "gs://bucket", GCSOptions{})
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
	bare := func(ctx context.Context) error {
		p := pool.New().WithContext(ctx).WithMaxGoroutines(32)
		for _, q := range queries {
			p.Go(func(ctx context.Context) error {
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
		b.Run(fmt.Sprintf("bare-client/answers=%s/concurrency=32", answers), func(b *testing.B) {
			e.replayRecorded(answers == "replayed")
			var requests int
			for b.Loop() {
				e.mu.Lock()
				before := e.methods["GET"]
				e.mu.Unlock()
				if err := bare(b.Context()); err != nil {
					b.Fatal(err)
				}
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
		b.Run(fmt.Sprintf("answers=%s/concurrency=%d", answers, conc), func(b *testing.B) {
			e.replayRecorded(bc.replayed)
			var requests int
			var runs int
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
				b.StartTimer()
				sum, err := New(src, d, cfg).Run(b.Context())
				b.StopTimer()
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
			b.ReportMetric(float64(requests), "requests")
			b.ReportMetric(ideal, "ideal-s")
			b.ReportMetric(wall, "wall-s")
			b.ReportMetric(100*ideal/wall, "%-of-ideal")
		})
	}
}
