package artifact

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"testing"

	"github.com/openshift-eng/prowcrawl/internal/testutil"
)

// manyCases is a JUnit file of n cases made up as it is read, so that the
// file itself takes no memory: one in 1,000 failed, and one in 5 of those
// followed by a passing duplicate (a flake), as origin writes them.
type manyCases struct {
	n, i int
	buf  []byte
	done bool
}

func (g *manyCases) Read(p []byte) (int, error) {
	for len(g.buf) < len(p) && !g.done {
		switch {
		case g.i == 0 && len(g.buf) == 0:
			g.buf = append(g.buf, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<testsuite name="openshift-tests">`+"\n"...)
		case g.i == g.n:
			g.buf, g.done = append(g.buf, "</testsuite>\n"...), true
			continue
		}
		name := fmt.Sprintf("[sig-arch] synthetic case %07d should pass [Suite:openshift/conformance/parallel]", g.i)
		if g.i%1000 == 7 {
			g.buf = fmt.Appendf(g.buf, "<testcase name=%q time=\"2.5\"><failure message=\"fail [test.go:42]: timed out\">timed out waiting for the condition</failure></testcase>\n", name)
			if g.i%5000 == 7 {
				g.buf = fmt.Appendf(g.buf, "<testcase name=%q time=\"1.0\"/>\n", name)
			}
		} else {
			g.buf = fmt.Appendf(g.buf, "<testcase name=%q time=\"1.2\"/>\n", name)
		}
		g.i++
	}
	n := copy(p, g.buf)
	g.buf = g.buf[:copy(g.buf, g.buf[n:])]
	if n == 0 && g.done {
		return 0, io.EOF
	}
	return n, nil
}

// generatedJUnit is a File whose content manyCases makes up.
type generatedJUnit struct {
	name string
	n    int
}

func (f generatedJUnit) Name() string { return f.name }
func (f generatedJUnit) Size() int64  { return -1 }
func (f generatedJUnit) Open(context.Context) (io.ReadCloser, error) {
	return io.NopCloser(&manyCases{n: f.n}), nil
}

// BenchmarkReadManyTests reads a run whose one JUnit file holds
// PROWCRAWL_BENCH_CASES cases (a million by default), with the default cap
// on a run's tests, and reports the tests kept and the peak heap in use.
func BenchmarkReadManyTests(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("PROWCRAWL_BENCH_CASES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			b.Fatalf("PROWCRAWL_BENCH_CASES=%q", s)
		}
	}
	run := Run{Dir: "logs/job/1/", Files: append(meta("FAILURE"),
		generatedJUnit{name: "artifacts/e2e/openshift-e2e-test/artifacts/junit/junit_e2e_20261201-000000.xml", n: n})}
	var kept int
	var peak uint64
	for b.Loop() {
		var res Result
		var err error
		peak = max(peak, testutil.MemoryPeak(func() { res, err = Read(b.Context(), run, Options{}) }).Heap)
		if err != nil {
			b.Fatal(err)
		}
		kept = len(res.Tests)
	}
	b.ReportMetric(float64(n), "cases")
	b.ReportMetric(float64(kept), "tests")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}
