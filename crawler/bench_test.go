package crawler

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/openshift-eng/prowcrawl/db"
)

// BenchmarkCrawlLatency crawls copies of the sample bucket's periodic jobs
// through the emulator with a fixed latency on every request, as a distant
// bucket has, and compares the wall time with the ideal: requests x latency
// / concurrency. It reports the share of that ideal reached.
//
// With downloads=replayed, the emulator answers downloads with its own
// recorded answers (see replayDownloads) instead of looking each object up
// by a linear scan: the crawl is then measured against the latency, not
// against the emulator's CPU. With downloads=emulator it does the lookup.
func BenchmarkCrawlLatency(b *testing.B) {
	const latency = 20 * time.Millisecond
	const copies = 2
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
	replay := func(on bool) {
		if on {
			e.replayDownloads(b, objs)
			return
		}
		e.mu.Lock()
		e.replay = nil
		e.mu.Unlock()
	}
	for _, bc := range []struct {
		conc     int
		replayed bool
	}{{8, true}, {32, true}, {32, false}} {
		conc := bc.conc
		downloads := "emulator"
		if bc.replayed {
			downloads = "replayed"
		}
		b.Run(fmt.Sprintf("downloads=%s/concurrency=%d", downloads, conc), func(b *testing.B) {
			replay(bc.replayed)
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
