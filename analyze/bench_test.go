package analyze

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/internal/benchdb"
	"github.com/openshift-eng/prowcrawl/internal/testutil"
)

// BenchmarkAnalyze analyses a generated database (benchdb) of 100,000 runs
// with 10 tests each (PROWCRAWL_BENCH_RUNS and PROWCRAWL_BENCH_TESTS set
// other sizes), reporting the seconds one analysis takes.
func BenchmarkAnalyze(b *testing.B) {
	n, tests := testutil.EnvInt(b, "PROWCRAWL_BENCH_RUNS", 100_000), testutil.EnvInt(b, "PROWCRAWL_BENCH_TESTS", 10)
	// PROWCRAWL_BENCH_DB keeps the generated database at that path, and
	// reuses it when it exists: generating a million runs takes longer than
	// analysing them.
	path := os.Getenv("PROWCRAWL_BENCH_DB")
	if path == "" {
		path = filepath.Join(b.TempDir(), "bench.db")
	}
	start := time.Now()
	d, generated, err := benchdb.Open(b.Context(), path, n, tests)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	if generated {
		b.Logf("generated %d runs with %d tests each in %v", n, tests, time.Since(start).Round(time.Millisecond))
	} else {
		b.Logf("reusing %s (opened in %v); PROWCRAWL_BENCH_RUNS and _TESTS are those it was generated with",
			path, time.Since(start).Round(time.Millisecond))
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

// BenchmarkRegressionOnsets finds the onset of every open regression of
// the generated database (see BenchmarkAnalyze for its size and reuse),
// its runs ordered by their nightly payloads: the work of report --changes
// on top of one analysis.
func BenchmarkRegressionOnsets(b *testing.B) {
	n := testutil.EnvInt(b, "PROWCRAWL_BENCH_RUNS", 100_000)
	path := os.Getenv("PROWCRAWL_BENCH_DB")
	if path == "" {
		path = filepath.Join(b.TempDir(), "bench.db")
	}
	d, _, err := benchdb.Open(b.Context(), path, n, testutil.EnvInt(b, "PROWCRAWL_BENCH_TESTS", 10))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	if _, err := Run(b.Context(), d, DefaultOptions()); err != nil {
		b.Fatal(err)
	}
	regs, err := d.Regressions(b.Context(), db.RegressionOpen)
	if err != nil {
		b.Fatal(err)
	}
	found := 0
	for b.Loop() {
		onsets, err := RegressionOnsets(b.Context(), d, regs)
		if err != nil {
			b.Fatal(err)
		}
		found = 0
		for _, o := range onsets {
			if o.Found {
				found++
			}
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/op")
	b.ReportMetric(float64(len(regs)), "regressions")
	b.ReportMetric(float64(found), "onsets")
}
