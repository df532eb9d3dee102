package crawler

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/openshift-eng/prowcrawl/gcs"
)

var (
	faultSeed = flag.Uint64("faultseed", 1, "seed of the faults TestCrawlSurvivesFaultyBucket injects")
	faultJSON = flag.Bool("faultjson", false, "TestCrawlSurvivesFaultyBucket reads through the JSON API")
)

// fastRetries keeps the tests' backoff short; the attempts are the
// default's.
var fastRetries = gcs.Options{InitialBackoff: time.Millisecond, MaxBackoff: 20 * time.Millisecond, RequestTimeout: 10 * time.Second}

// TestCrawlSurvivesFaultyBucket crawls the sample bucket through an
// emulator that fails, resets or cuts off over a fifth of its answers and
// delays others, and expects the database of a crawl without faults. It
// draws the faults from seeds 1 to 3, or from -faultseed.
func TestCrawlSurvivesFaultyBucket(t *testing.T) {
	clean := cleanSample(t)
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1] // make test; the full run draws all three
	}
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "faultseed" {
			seeds = []uint64{*faultSeed}
		}
	})
	for _, seed := range seeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { crawlFaultyBucket(t, clean, seed) })
	}
}

func crawlFaultyBucket(t *testing.T, clean string, seed uint64) {
	e := newEmulator(t, "bucket", shortObjects(t))
	e.setFaults(&faults{Seed: seed, Unavailable: 0.08, TooMany: 0.05, Reset: 0.05, Truncate: 0.07, Latency: 0.1, MaxDelay: 20 * time.Millisecond})
	opts := fastRetries
	opts.JSONReads = *faultJSON
	src, err := gcs.New(t.Context(), "gs://bucket", opts)
	if err != nil {
		t.Fatal(err)
	}
	d := openDB(t)
	var logs bytes.Buffer
	cfg := shortSample(sampleConfig())
	cfg.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	// Runs that still could not be read are read again by the next
	// crawl; with the retries, none should be left for it.
	reruns := -1
	for reruns < 3 {
		reruns++
		sum, err := New(src, d, cfg).Run(t.Context())
		if err == nil {
			break
		}
		if !errors.Is(err, ErrRunsFailed) {
			t.Fatalf("crawl %d: %v", reruns+1, err)
		}
		t.Logf("crawl %d left %d runs not fully read: %q", reruns+1, sum.Errors,
			query(t, d, `SELECT fetch_error FROM runs WHERE fetch_status <> 'complete'`))
	}
	got := e.faultCounts()
	t.Logf("%v; %d reruns", got, reruns)
	if rate := float64(got.Failed()) / float64(got.Requests); rate < 0.2 {
		t.Errorf("only %.1f%% of the requests failed; the test wants 20%% or more", 100*rate)
	}
	if reruns == 3 {
		t.Errorf("runs were still not fully read after %d reruns", reruns)
	}
	if got := dumpDB(t, d); got != clean {
		t.Fatalf("the database crawled through faults differs from the clean one:\n%s", firstDiff(clean, got))
	}

	// Read-only access, and no credentials in the logs.
	e.mu.Lock()
	methods := e.methods
	e.mu.Unlock()
	for m, n := range methods {
		if m != http.MethodGet {
			t.Errorf("the crawl made %d %s requests; it must only read", n, m)
		}
	}
	for _, secret := range []string{"authorization", "bearer", "token", "private_key", "x-goog-"} {
		if strings.Contains(strings.ToLower(logs.String()), secret) {
			t.Errorf("the logs mention %q:\n%s", secret, logs.String())
		}
	}
}

// firstDiff shows where two dumps part.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n want %s\n got  %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(al), len(bl))
}

// TestStuckRequestsEndAtTheirDeadline: an object that never answers and a
// body that stops half way end at the request timeout, a run whose reads
// are too slow ends at the run timeout; each run is recorded as not fully
// read, and the next crawl reads it whole.
func TestStuckRequestsEndAtTheirDeadline(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	const job = "periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade"
	dir := func(id string) string { return "logs/" + job + "/" + id + "/" }
	var objs []fakestorage.Object
	for _, id := range []string{"101", "102", "103"} {
		objs = append(objs,
			obj("ci", dir(id)+"started.json", []byte(started(t0))),
			obj("ci", dir(id)+"finished.json", []byte(finished(t0.Add(time.Hour), "FAILURE"))),
			obj("ci", dir(id)+"build-log.txt", bytes.Repeat([]byte("dial tcp 10.0.61.114:2379: connect: connection refused\n"), 2000)),
		)
	}
	e := newEmulator(t, "ci", objs)
	is := func(r *http.Request, id, file string) bool {
		return r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/"+id+"/"+file)
	}
	e.setFaults(&faults{
		Hang:  func(r *http.Request) bool { return is(r, "101", "started.json") },
		Stall: func(r *http.Request) bool { return is(r, "102", "build-log.txt") },
	})
	opts := fastRetries
	opts.RequestTimeout = 300 * time.Millisecond
	src, err := gcs.New(t.Context(), "gs://ci", opts)
	if err != nil {
		t.Fatal(err)
	}
	d := openDB(t)
	cfg := Config{Jobs: upgradeJobs, Since: t0.Add(-time.Hour), Rules: builtinRules, RunTimeout: time.Minute}
	start := time.Now()
	sum, err := New(src, d, cfg).Run(t.Context())
	if !errors.Is(err, ErrRunsFailed) || sum.Errors != 2 {
		t.Fatalf("crawl: %v, %+v; want 2 runs not fully read", err, sum)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the crawl took %s", took)
	}
	want := []string{
		"101|error|read gs://ci/" + dir("101") + "started.json: no progress for 300ms",
		"102|partial|read " + dir("102") + "build-log.txt: no progress for 300ms",
		"103|complete|NULL",
	}
	if got := query(t, d, `SELECT build_id, fetch_status, fetch_error FROM runs ORDER BY build_id`); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A run slower than its time limit.
	e.setFaults(&faults{Latency: 1, MaxDelay: time.Second, Seed: 1})
	cfg.RunTimeout = 200 * time.Millisecond
	cfg.Refetch = true
	patient, err := gcs.New(t.Context(), "gs://ci", fastRetries)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(patient, d, cfg).Run(t.Context()); !errors.Is(err, ErrRunsFailed) {
		t.Fatalf("slow crawl: %v", err)
	}
	if got := query(t, d, `SELECT DISTINCT fetch_status, fetch_error FROM runs`); len(got) != 1 || got[0] != "error|the run was not read within its time limit (200ms)" {
		t.Errorf("runs of the slow crawl: %q", got)
	}

	// The bucket recovers: the next crawl reads them.
	e.setFaults(nil)
	cfg.RunTimeout, cfg.Refetch = time.Minute, false
	if sum, err := New(src, d, cfg).Run(t.Context()); err != nil || sum.Updated != 3 {
		t.Fatalf("crawl after recovery: %v, %+v", err, sum)
	}
	if got := query(t, d, `SELECT count(*) FROM run_symptoms WHERE symptom_id = 'etcd-connection-refused'`); got[0] != "3" {
		t.Errorf("%s runs show the symptom after recovery, want 3", got[0])
	}
}

// TestJobListingFails: a job whose builds cannot be listed is skipped and
// counted; the others are crawled.
func TestJobListingFails(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	jobA, jobB := "a-4.14-upgrade", "b-4.14-upgrade"
	e := newEmulator(t, "ci", []fakestorage.Object{
		obj("ci", "logs/"+jobA+"/1/started.json", []byte(started(t0))),
		obj("ci", "logs/"+jobB+"/1/started.json", []byte(started(t0))),
	})
	e.setFaults(&faults{Unavailable: 0, Hang: func(r *http.Request) bool {
		return strings.Contains(r.URL.RawQuery, "prefix=logs%2F"+jobB+"%2F") || strings.Contains(r.URL.RawQuery, "prefix=logs/"+jobB+"/")
	}})
	opts := fastRetries
	opts.RequestTimeout = 200 * time.Millisecond
	src, err := gcs.New(t.Context(), "gs://ci", opts)
	if err != nil {
		t.Fatal(err)
	}
	d := openDB(t)
	sum, err := New(src, d, Config{Jobs: upgradeJobs, Since: t0.Add(-time.Hour)}).Run(t.Context())
	if !errors.Is(err, ErrRunsFailed) || !strings.Contains(err.Error(), "1 jobs could not be listed") {
		t.Fatalf("crawl: %v", err)
	}
	if sum.Jobs != 2 || sum.Unlisted != 1 || sum.New != 1 {
		t.Errorf("summary %+v, want 2 jobs, 1 not listed, 1 new run", sum)
	}
	if got := query(t, d, `SELECT job FROM runs`); len(got) != 1 || got[0] != jobA {
		t.Errorf("runs of %v, want only %s", got, jobA)
	}
}

// TestSilentlyCutBodyIsCaught: an answer without a length that ends half
// way looks whole to HTTP; the size the listing gave shows it is not.
func TestSilentlyCutBodyIsCaught(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	dir := "logs/a-4.14-upgrade/1/"
	e := newEmulator(t, "ci", []fakestorage.Object{
		obj("ci", dir+"started.json", []byte(started(t0))),
		obj("ci", dir+"finished.json", []byte(finished(t0.Add(time.Hour), "FAILURE"))),
		obj("ci", dir+"artifacts/e2e/openshift-e2e-test/artifacts/junit/junit_upgrade_1.xml", []byte(junitWithFlake)),
	})
	e.setFaults(&faults{Cut: func(r *http.Request) bool { return strings.Contains(r.URL.Path, "junit_upgrade_1.xml") }})
	src, err := gcs.New(t.Context(), "gs://ci", fastRetries)
	if err != nil {
		t.Fatal(err)
	}
	d := openDB(t)
	cfg := Config{Jobs: upgradeJobs, Since: t0.Add(-time.Hour)}
	if _, err := New(src, d, cfg).Run(t.Context()); !errors.Is(err, ErrRunsFailed) {
		t.Fatalf("crawl: %v, want ErrRunsFailed", err)
	}
	got := query(t, d, `SELECT fetch_status, e.kind, e.message FROM runs JOIN run_errors e USING (job, build_id)`)
	if len(got) != 1 || !strings.HasPrefix(got[0], "partial|read|") || !strings.Contains(got[0], "bytes of the "+fmt.Sprint(len(junitWithFlake))+" listed") {
		t.Fatalf("run and its errors: %q, want it partial for the cut JUnit file", got)
	}
	e.setFaults(nil)
	if _, err := New(src, d, cfg).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := query(t, d, `SELECT fetch_status, (SELECT count(*) FROM tests) FROM runs`); got[0] != "complete|2" {
		t.Errorf("after the next crawl: %q, want the run complete with its 2 tests", got)
	}
}
