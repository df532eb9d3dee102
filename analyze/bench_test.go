package analyze

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/db"
)

// builtin are the design's built-in symptoms.
var builtin = []string{
	"etcd-connection-refused", "etcd-transport-closing", "cni-default-network-missing", "pod-network-cross-node",
	"sdn-rollout-readiness-loss", "api-unavailable-during-upgrade", "upgrade-incomplete",
}

// benchBackends are the disruption backends of a generated run.
var benchBackends = []string{"kube-api-new-connections", "openshift-api-new-connections", "pod-to-pod-new-connections", "ingress-to-console-new-connections"}

// generate writes n runs of 48 upgrade jobs (releases 4.9 to 4.16, minor and
// micro, four platforms, ovn, sdn and unnamed networks) over 90 days before
// now, each with tests test cases and the symptoms a failing upgrade shows,
// with the disruption of four backends, through db.Write in the crawler's
// batches. It is deterministic.
func generate(b testing.TB, d *db.DB, n, tests int) {
	b.Helper()
	var syms []db.Symptom
	for _, id := range builtin {
		syms = append(syms, db.Symptom{ID: id, Title: id, Source: "builtin"})
	}
	if err := d.SyncSymptoms(b.Context(), syms); err != nil {
		b.Fatal(err)
	}
	var jobs []db.Job
	for minor := 10; minor <= 16; minor++ {
		to, from := "4."+strconv.Itoa(minor), "4."+strconv.Itoa(minor-1)
		for i, platform := range []string{"aws", "gcp", "azure", "metal"} {
			network := []string{"ovn", "sdn", "", "ovn"}[i]
			jobs = append(jobs, upgradeJob(from, to, "minor", platform, network))
			if i < 3 {
				jobs = append(jobs, upgradeJob(to, to, "micro", platform, network))
			}
		}
	}
	jobs = jobs[:48]
	rng := rand.New(rand.NewPCG(1, 2))
	p := newPlanter(b, d)
	span := 90 * 24 * time.Hour
	for i := range n {
		j := jobs[i%len(jobs)]
		start := now.Add(-time.Duration(rng.Int64N(int64(span))))
		result := "success"
		switch x := rng.IntN(100); {
		case x < 20:
			result = "failure"
		case x < 24:
			result = "error"
		case x < 27:
			result = "aborted"
		case x < 28:
			result = "pending"
		}
		var shows []string
		for k, id := range builtin {
			// Each symptom has its own rate, higher in failed runs and in
			// the newest release.
			chance := 2 + k
			if result != "success" {
				chance += 15
			}
			if j.Release == "4.16" && k == 3 {
				chance += 10
			}
			if rng.IntN(100) < chance {
				shows = append(shows, id)
			}
		}
		r := p.run(j, result, start, shows...)
		if result != "pending" {
			// Four backends of one backend-disruption file, as a run's
			// e2e step writes them: mostly a second or two, more in a run
			// whose pod network broke.
			for b, backend := range benchBackends {
				secs := float64(rng.IntN(3))
				if b == 2 && slices.Contains(shows, "pod-network-cross-node") {
					secs += float64(rng.IntN(20))
				}
				r.Disruptions = append(r.Disruptions, db.RunDisruption{File: "artifacts/e2e/openshift-e2e-test/artifacts/junit/backend-disruption_e2e.json",
					Backend: backend, BackendName: strings.SplitN(backend, "-new", 2)[0], Connection: "new", Seconds: secs, Source: db.DisruptionFromFile})
			}
		}
		for k := range tests {
			status := "pass"
			switch x := rng.IntN(100); {
			case x < 3:
				status = "flake"
			case x < 5:
				status = "fail"
			case x < 8:
				status = "skip"
			}
			r.Tests = append(r.Tests, db.Test{Suite: "openshift-tests",
				Name: fmt.Sprintf("[sig-test] upgrade case %d should work", k), Status: status})
		}
		if len(p.recs) == 500 {
			p.flush()
		}
	}
	p.flush()
}

// BenchmarkAnalyze analyses a generated database of 100,000 runs with 10
// tests each (PROWCRAWL_BENCH_RUNS and PROWCRAWL_BENCH_TESTS set other
// sizes), reporting the seconds one analysis takes.
func BenchmarkAnalyze(b *testing.B) {
	n, tests := envInt(b, "PROWCRAWL_BENCH_RUNS", 100_000), envInt(b, "PROWCRAWL_BENCH_TESTS", 10)
	// PROWCRAWL_BENCH_DB keeps the generated database at that path, and
	// reuses it when it exists: generating a million runs takes longer than
	// analysing them.
	path, reuse := os.Getenv("PROWCRAWL_BENCH_DB"), false
	if path == "" {
		path = filepath.Join(b.TempDir(), "bench.db")
	} else if _, err := os.Stat(path); err == nil {
		reuse = true
	}
	start := time.Now()
	d, err := db.Open(b.Context(), path)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	if reuse {
		b.Logf("reusing %s (opened in %v); PROWCRAWL_BENCH_RUNS and _TESTS are those it was generated with",
			path, time.Since(start).Round(time.Millisecond))
	} else {
		generate(b, d, n, tests)
		b.Logf("generated %d runs with %d tests each in %v", n, tests, time.Since(start).Round(time.Millisecond))
	}
	var sum Summary
	for b.Loop() {
		if sum, err = Run(b.Context(), d, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/analysis")
	b.ReportMetric(float64(n), "runs")
	b.Logf("%+v", sum)
}

// envInt is the integer in environment variable name, or def.
func envInt(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		b.Fatalf("%s=%q is not a count", name, s)
	}
	return n
}
