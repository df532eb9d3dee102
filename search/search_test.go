package search

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/cache"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/stats"
)

const planted = "E1120 08:14:02.118 dial tcp 10.0.61.114:2379: connect: connection refused"

// stepLog is a run's step log, with the planted line at line at (0: none).
func stepLog(seed, at int) []byte {
	var b bytes.Buffer
	for i := 1; i <= 400; i++ {
		if i == at {
			b.WriteString(planted + "\n")
			continue
		}
		fmt.Fprintf(&b, "Nov 20 08:%02d:%02d.%03d I ns/openshift-ovn-kubernetes pod/ovnkube-node-%d node/ip-10-0-%d-1 reason/Started\n", i/60%60, i%60, seed%1000, seed, i%250)
	}
	return b.Bytes()
}

// TestSearchFindsPlantedLine stores runs of two jobs in a cache, some
// with a planted line in one file, and checks that exactly those runs
// match, with the right shares and test.
func TestSearchFindsPlantedLine(t *testing.T) {
	c, err := cache.Open(filepath.Join(t.TempDir(), "cache"), 0)
	if err != nil {
		t.Fatal(err)
	}
	jobs := []struct {
		name string
		edge prowcrawl.Edge
	}{
		{"periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade", prowcrawl.Edge{From: "4.13", To: "4.14", Kind: "minor"}},
		{"periodic-ci-openshift-release-master-nightly-4.14-e2e-metal-ipi-upgrade-ovn-ipv6", prowcrawl.Edge{From: "4.14", To: "4.14", Kind: "micro"}},
	}
	var runs []db.StoredRun
	want := map[string]int{} // run -> line of the plant
	start := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	for j, job := range jobs {
		for i := range 20 {
			id := int64(1700000000000000000 + j*100 + i)
			path := fmt.Sprintf("logs/%s/%d", job.name, id)
			result := "success"
			if i%2 == 1 {
				result = "failure"
			}
			if i == 19 {
				result = "aborted"
			}
			// Job 0: 8 of 10 failed runs and 1 of 10 passed runs have it
			// (and the aborted one); job 1: one passed run only.
			at := 0
			switch {
			case j == 0 && result == "failure" && i < 17:
				at = 10 + i
			case j == 0 && (i == 4 || i == 19):
				at = 3
			case j == 1 && i == 6:
				at = 400
			}
			runs = append(runs, db.StoredRun{Job: job.name, BuildID: id, Bucket: "test-platform-results", Path: path,
				Result: prowcrawl.Result(result), Edge: job.edge, StartedAt: start, URL: "https://prow.ci.openshift.org/view/gs/test-platform-results/" + path})
			if i == 13 && j == 1 {
				continue // not in the cache
			}
			w, err := c.Create(cache.Key{Bucket: "test-platform-results", Path: path})
			if err != nil {
				t.Fatal(err)
			}
			w.SetStarted(start)
			step := "artifacts/e2e/openshift-e2e-test/build-log.txt"
			w.Put(step, bytes.NewReader(stepLog(i, at)))
			w.Put("build-log.txt", bytes.NewReader(stepLog(i+1, 0)))
			w.Put("started.json", bytes.NewReader([]byte(`{"timestamp":1763625600}`)))
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			if at > 0 {
				want[fmt.Sprintf("%s/%d %s/%s:%d", job.name, id, path, step, at)] = at
			}
		}
	}
	res, err := Search(t.Context(), c, runs, Options{Pattern: `dial tcp [0-9.]+:2379: connect: connection refused`, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Runs {
		if r.Matches != 1 || len(r.Lines) != 1 || r.Lines[0].Text != planted {
			t.Errorf("%s/%d: %d matches %+v", r.Job, r.BuildID, r.Matches, r.Lines)
			continue
		}
		got = append(got, fmt.Sprintf("%s/%d %s:%d", r.Job, r.BuildID, r.Lines[0].File, r.Lines[0].Line))
	}
	var wantList []string
	for k := range want {
		wantList = append(wantList, k)
	}
	slices.Sort(wantList)
	if !slices.Equal(got, wantList) {
		t.Fatalf("matching runs\n got %q\nwant %q", got, wantList)
	}
	if res.Searched != 39 || len(res.NotCached) != 1 || res.NotCached[0].BuildID != 1700000000000000113 {
		t.Errorf("searched %d, not cached %v", res.Searched, res.NotCached)
	}
	if res.Files != 39*3 {
		t.Errorf("%d files searched, want %d", res.Files, 39*3)
	}
	if len(res.Groups) != 2 {
		t.Fatalf("groups %+v", res.Groups)
	}
	g0, g1 := res.Groups[0], res.Groups[1]
	// Job 0: 19 finished runs (10 passed, 9 failed), the aborted one aside.
	if g0.Job != jobs[0].name || g0.Edge != "4.13->4.14 minor" || g0.Runs != 19 || g0.Failed != 9 || g0.Passed != 10 ||
		g0.FailedHits != 8 || g0.PassedHits != 1 || g0.Hits != 9 {
		t.Errorf("group 0 %+v", g0)
	}
	wantP, _ := stats.FisherOneSided(8, 9, 1, 10)
	if math.Abs(g0.P-wantP) > 1e-12 || g0.P > 0.001 {
		t.Errorf("p = %g, want %g", g0.P, wantP)
	}
	if math.Abs(g0.FailedShare()-8.0/9) > 1e-12 || math.Abs(g0.PassedShare()-0.1) > 1e-12 {
		t.Errorf("shares %g %g", g0.FailedShare(), g0.PassedShare())
	}
	// Job 1: one of the 18 cached finished runs, a passed one.
	if g1.Edge != "4.14 micro" || g1.Runs != 18 || g1.Hits != 1 || g1.PassedHits != 1 || g1.FailedHits != 0 || g1.P != 1 {
		t.Errorf("group 1 %+v", g1)
	}

	// --files narrows the files searched: the root build log never has it.
	res, err = Search(t.Context(), c, runs, Options{Pattern: "connection refused", Files: regexp.MustCompile(`^build-log\.txt$`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 0 || res.Files != 39 {
		t.Errorf("--files build-log.txt: %d runs, %d files", len(res.Runs), res.Files)
	}
	if _, err := Search(t.Context(), c, runs, Options{Pattern: "("}); err == nil {
		t.Error("a bad pattern was accepted")
	}
}

// TestSearchPresubmitScope checks that a presubmit job's runs are counted
// in a scope of their own, not under the edge their versions give.
func TestSearchPresubmitScope(t *testing.T) {
	c, err := cache.Open(filepath.Join(t.TempDir(), "cache"), 0)
	if err != nil {
		t.Fatal(err)
	}
	const job = "pull-ci-openshift-ovn-kubernetes-master-e2e-aws-ovn-upgrade"
	start := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	var runs []db.StoredRun
	for i, result := range []prowcrawl.Result{prowcrawl.ResultFailure, prowcrawl.ResultSuccess, prowcrawl.ResultFailure} {
		id := int64(2123770744293818372 + i)
		path := fmt.Sprintf("pr-logs/pull/openshift_ovn-kubernetes/%d/%s/%d", 4019+i, job, id)
		runs = append(runs, db.StoredRun{Job: job, JobType: "presubmit", BuildID: id, Bucket: "test-platform-results", Path: path,
			Result: result, Edge: prowcrawl.Edge{From: "4.14", To: "4.14", Kind: "micro"}, StartedAt: start})
		w, err := c.Create(cache.Key{Bucket: "test-platform-results", Path: path})
		if err != nil {
			t.Fatal(err)
		}
		w.SetStarted(start)
		at := 0
		if result == "failure" {
			at = 7
		}
		w.Put("build-log.txt", bytes.NewReader(stepLog(i, at)))
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Search(t.Context(), c, runs, Options{Pattern: "connection refused"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 1 {
		t.Fatalf("groups %+v, want the job's one", res.Groups)
	}
	if g := res.Groups[0]; g.Job != job || g.Edge != "presubmit" || g.Runs != 3 || g.FailedHits != 2 || g.PassedHits != 0 {
		t.Errorf("group %+v, want the job's 3 runs in the presubmit scope, both failed ones matching", g)
	}
}

// TestCompileQuotesThePattern: a bad pattern's error quotes it as typed,
// not with the (?m) that Search puts before it.
func TestCompileQuotesThePattern(t *testing.T) {
	_, err := Compile("(")
	if err == nil || strings.Contains(err.Error(), "(?m)") || !strings.Contains(err.Error(), "missing closing )") {
		t.Errorf("Compile(\"(\") = %v", err)
	}
}

// TestRate: a plain pattern matches log text hundreds of times faster
// than a counted repeat of a large class.
func TestRate(t *testing.T) {
	plain, _ := Compile("etcdserver: request timed out")
	slow, _ := Compile(`[\x{0}-\x{10FFFF}]{1000}`)
	if p, s := Rate(plain), Rate(slow); p < 20*s {
		t.Errorf("rates: plain %.0f B/s, slow %.0f B/s; want the plain one far faster", p, s)
	}
}
