package suggest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/classify"
)

// benchShapes are the kinds of failure message a CI corpus repeats, each
// with the fields that differ from run to run.
var benchShapes = []string{
	"fail [k8s.io/kubernetes/test/e2e/%s/%s.go:%d]: Unexpected error:\n    <*errors.errorString | 0xc%09x>: \n    timed out waiting for the condition\noccurred",
	"fail [github.com/openshift/origin/test/extended/%s/%s.go:%d]: pod %s-%s-%s in namespace e2e-%s-%d did not become ready within %dm%ds",
	`Get "https://%d.%d.%d.%d:6443/api/v1/namespaces/openshift-%s/pods": dial tcp %d.%d.%d.%d:6443: connect: connection refused`,
	"E1201 09:%02d:%02d.%06d       1 %s.go:%d] failed to sync %s %s-%s-%s: %s is not ready on node ip-10-0-%d-%d.ec2.internal",
	"%s/%s: timed out after %ds waiting for %d of %d replicas of deployment %s-%s to be available",
	`{"level":"error","ts":"2026-12-01T09:%02d:%02d.%03dZ","msg":"%s reconcile failed","controller":"%s","error":"%s %s-%s not found"}`,
	"Jan %d %02d:%02d:%02d.%03d E ns/openshift-%s pod/%s-%s-%s node/ip-10-0-%d-%d.ec2.internal reason/%s %s",
}

var benchWords = strings.Fields(`network storage apps node auth etcd apiserver router ingress dns monitoring
	console image-registry machine-config kube-controller-manager scheduler oauth insights marketplace
	Unhealthy BackOff FailedMount ProbeError NodeNotReady Killing Pulled Evicted OOMKilled
	deployment daemonset statefulset pod service endpoint lease configmap secret route`)

// benchCorpus makes texts of nRuns runs: each failure is a shape with
// words and numbers drawn for it (the same failure in another run differs
// only in its numbers and generated names), and one text in twenty is a
// one-off.
type benchCorpus struct {
	r        *rand.Rand
	failures []func(r *rand.Rand) string
	// same is, for each kind, the first kind that reads the same but for
	// its numbers and generated names: two kinds may draw the same shape
	// and words, and no reader can tell them apart.
	same []int
}

func newBenchCorpus(seed uint64, kinds int) *benchCorpus {
	r := rand.New(rand.NewPCG(seed, 1))
	c := &benchCorpus{r: r}
	w := func() string { return benchWords[r.IntN(len(benchWords))] }
	for range kinds {
		shape := benchShapes[r.IntN(len(benchShapes))]
		// Fixed words of this failure; numbers and names drawn per text.
		fixed := []string{w(), w(), w(), w(), w(), w()}
		c.failures = append(c.failures, func(r *rand.Rand) string {
			var args []any
			wi := 0
			for i := 0; i+1 < len(shape); i++ {
				if shape[i] != '%' {
					continue
				}
				j := i + 1
				for j < len(shape) && (shape[j] >= '0' && shape[j] <= '9') {
					j++
				}
				switch shape[j] {
				case 's':
					// A generated name only where one is: after a dash.
					if i > 0 && shape[i-1] == '-' {
						args = append(args, k8sName(r, 5))
					} else {
						args = append(args, fixed[wi%len(fixed)])
					}
					wi++
				case 'd', 'x':
					args = append(args, r.IntN(250))
				}
				i = j
			}
			return fmt.Sprintf(shape, args...)
		})
	}
	first := make(map[string]int)
	for k, f := range c.failures {
		// The same draws for every kind: what differs is its words.
		fp := f(rand.New(rand.NewPCG(0, 0)))
		if _, ok := first[fp]; !ok {
			first[fp] = k
		}
		c.same = append(c.same, first[fp])
	}
	return c
}

// text returns the next failure text and its kind: a Zipf-distributed
// failure kind, or a one-off (a kind past the failures').
func (c *benchCorpus) text(z *rand.Zipf) (string, int) {
	if c.r.IntN(20) == 0 {
		return fmt.Sprintf("one-off failure %s %s %s", k8sName(c.r, 8), benchWords[c.r.IntN(len(benchWords))], strconv.Itoa(c.r.IntN(1e6))), len(c.failures) + c.r.IntN(1e6)
	}
	k := int(z.Uint64())
	return c.failures[k](c.r), k
}

// benchTestNames are the tests the failures are of: a test fails in
// several ways, and several tests fail the same way.
var benchTestNames = func() []string {
	var out []string
	for i := range 1500 {
		out = append(out, fmt.Sprintf("[sig-%s] %s should %s %s [Suite:openshift/conformance/parallel] %d",
			benchWords[i%7], benchWords[(i/7)%len(benchWords)], benchWords[(i/3)%len(benchWords)], benchWords[(i*7)%len(benchWords)], i))
	}
	return out
}()

// benchTexts is how many failure texts BenchmarkSuggest clusters:
// PROWCRAWL_BENCH_TEXTS, or a million.
func benchTexts(b *testing.B) int {
	if s := os.Getenv("PROWCRAWL_BENCH_TEXTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("PROWCRAWL_BENCH_TEXTS=%q", s)
		}
		return n
	}
	return 1_000_000
}

// BenchmarkSuggest streams a million failure texts (20 per run over 50,000
// runs, 40 % of them failed; 5,000 kinds of failure, Zipf-distributed, and
// one text in twenty a one-off) through a Collector and asks for the top
// proposals: normalising, templates, clustering, ranking and rules. It
// reports texts per second and the peak heap.
func BenchmarkSuggest(b *testing.B) {
	n := benchTexts(b)
	const perRun = 20
	nRuns := max(1, n/perRun)
	for b.Loop() {
		c := newBenchCorpus(7, 5000)
		z := rand.NewZipf(c.r, 1.1, 4, uint64(len(c.failures)-1))
		runs := make([]Run, nRuns)
		edges := []string{"4.13->4.14 minor", "4.14 micro", "4.12->4.13 minor", "4.15 micro"}
		for i := range runs {
			runs[i] = Run{Job: "periodic-upgrade-" + strconv.Itoa(i%40), BuildID: int64(i), Edge: edges[i%len(edges)], Failed: c.r.IntN(10) < 4}
			runs[i].Explained = runs[i].Failed && c.r.IntN(2) == 0
		}
		// The built-in rules tell which failed tests' messages are
		// explained, as the command gives them.
		eng, err := classify.NewEngine(classify.Builtin())
		if err != nil {
			b.Fatal(err)
		}
		col := New(runs, Options{Rules: eng})
		var peak uint64
		var ms runtime.MemStats
		start := time.Now()
		for i := range n {
			run := i / perRun
			text, kind := c.text(z)
			t := Text{Run: run, Kind: KindJUnit, Test: benchTestNames[kind%len(benchTestNames)], Text: text}
			col.Add(t)
			if i%100_000 == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		}
		added := time.Since(start)
		res, err := col.Propose(20)
		if err != nil {
			b.Fatal(err)
		}
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
		total := time.Since(start)
		b.ReportMetric(float64(n)/total.Seconds(), "texts/s")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		b.ReportMetric(added.Seconds(), "add-s")
		b.ReportMetric(float64(res.Stats.Templates), "templates")
		b.ReportMetric(float64(res.Clusters), "clusters")
	}
}

// BenchmarkNormalize is the normaliser alone on the same kind of texts.
func BenchmarkNormalize(b *testing.B) {
	c := newBenchCorpus(3, 500)
	z := rand.NewZipf(c.r, 1.1, 4, uint64(len(c.failures)-1))
	texts := make([]string, 10_000)
	size := 0
	for i := range texts {
		texts[i], _ = c.text(z)
		size += len(texts[i])
	}
	var n normalizer
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, t := range texts {
			n.reset()
			n.text(t)
		}
	}
}
