package db_test

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/internal/benchdb"
)

// writeBatch is how many runs a benchmark's Write stores at once: the
// crawler stores a batch when it holds a few runs and no result waits.
const writeBatch = 8

// benchRecord is a run as a crawl of upgrade jobs stores it: 60 test cases
// (three failed with a message, a few skipped), two symptoms and six rows
// of disruption from two files.
func benchRecord(j prowcrawl.Job, build int64, start time.Time) prowcrawl.Record {
	r := benchdb.Record(j, build, "failure", start, benchdb.Builtin[0], benchdb.Builtin[5])
	r.Run.ToVersion = "4.16.0-0.ci-2026-11-29-101214"
	r.Run.FromVersion = "4.15.0-0.ci-2026-11-28-091002"
	r.Run.UpgradeState = "Completed"
	r.Run.ObjectsRead, r.Run.BytesRead = 13, 4_812_330
	for k := range 60 {
		t := prowcrawl.Test{Suite: "openshift-tests", Status: "pass", DurationS: float64(k%17) + 0.25,
			Name: fmt.Sprintf("[sig-network] Services should serve endpoints on same port and different protocols %d [Suite:openshift/conformance/parallel]", k)}
		switch k {
		case 7, 31, 44:
			t.Status = "fail"
			t.Message = fmt.Sprintf("fail [k8s.io/kubernetes/test/e2e/network/service.go:%d]: Unexpected error:\n    <*errors.errorString | 0xc001b2e0a0>: \n    dial tcp 172.30.0.1:443: connect: connection refused", 1200+k)
		case 12, 50:
			t.Status = "skip"
		}
		r.Tests = append(r.Tests, t)
	}
	for f, file := range []string{"artifacts/e2e/openshift-e2e-test/artifacts/junit/backend-disruption_e2e.json",
		"artifacts/e2e/gather-extra/artifacts/events.json"} {
		for b, backend := range benchdb.Backends[:3] {
			src := prowcrawl.DisruptionFromFile
			if f == 1 {
				src = prowcrawl.DisruptionFromEvents
			}
			r.Disruptions = append(r.Disruptions, prowcrawl.RunDisruption{File: file, Backend: backend,
				BackendName: backend[:len(backend)-len("-new-connections")], Connection: "new",
				Seconds: float64(b + f), Source: src})
		}
	}
	return r
}

// BenchmarkWriteRuns times db.Write per run, in batches of writeBatch: runs new
// to the database (a crawl of new runs), and the same runs written again (a
// crawl that finds runs it stored pending, or a backfill).
func BenchmarkWriteRuns(b *testing.B) {
	ctx := context.Background()
	// Eight jobs, a run every 20 minutes among them: nine runs a day of
	// each job, as periodic upgrade jobs run (the triggers of migration
	// 0019 count a job's day again for each row of disruption).
	var jobs []prowcrawl.Job
	for _, platform := range []string{"aws", "gcp", "azure", "metal"} {
		jobs = append(jobs, benchdb.UpgradeJob("4.15", "4.16", "minor", platform, "ovn"),
			benchdb.UpgradeJob("4.16", "4.16", "micro", platform, "ovn"))
	}
	rec := func(k int64) prowcrawl.Record {
		return benchRecord(jobs[k%int64(len(jobs))], 1_800_000_000_000_000_000+k,
			benchdb.Now.Add(-90*24*time.Hour).Add(time.Duration(k)*20*time.Minute))
	}
	open := func(b *testing.B) *db.DB {
		d, err := db.Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { d.Close() })
		var syms []db.Symptom
		for _, id := range benchdb.Builtin {
			syms = append(syms, db.Symptom{ID: id, Title: id, Source: "builtin"})
		}
		if err := d.SyncSymptoms(ctx, syms); err != nil {
			b.Fatal(err)
		}
		return d
	}
	b.Run("new", func(b *testing.B) {
		d := open(b)
		var next int64
		recs := make([]prowcrawl.Record, 0, writeBatch)
		b.ReportAllocs()
		b.ResetTimer()
		defer reportCPU(b)()
		for i := 0; i < b.N; i += writeBatch {
			recs = recs[:0]
			for k := 0; k < writeBatch && i+k < b.N; k++ {
				next++
				recs = append(recs, rec(next))
			}
			if err := d.Write(ctx, recs, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("again", func(b *testing.B) {
		d := open(b)
		const runs = 256
		var all []prowcrawl.Record
		for k := range runs {
			all = append(all, rec(int64(k)))
		}
		for k := 0; k < runs; k += writeBatch {
			if err := d.Write(ctx, all[k:k+writeBatch], nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		b.ResetTimer()
		defer reportCPU(b)()
		for i := 0; i < b.N; i += writeBatch {
			k := i % runs
			n := min(writeBatch, b.N-i)
			if err := d.Write(ctx, all[k:k+n], nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// reportCPU reports the CPU time (user and system) of the process per op,
// from now to when the function it returns is called: on a shared machine
// it varies less than the time on the clock.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
