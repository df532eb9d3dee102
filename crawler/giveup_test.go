package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/internal/sourcetest"
	"github.com/openshift-eng/prowcrawl/mirror"
)

// brokenSource is a source whose named objects cannot be read, as an object
// whose download fails every time does; it counts the opens of each.
type brokenSource struct {
	*sourcetest.Source
	mu     sync.Mutex
	broken map[string]bool
	opened map[string]int
}

func newBrokenSource(inner prowcrawl.Source, broken ...string) *brokenSource {
	b := &brokenSource{Source: sourcetest.Wrap(inner), broken: map[string]bool{}, opened: map[string]int{}}
	for _, name := range broken {
		b.broken[name] = true
	}
	b.OpenFunc = func(ctx context.Context, name string) (io.ReadCloser, error) {
		b.mu.Lock()
		b.opened[name]++
		broken := b.broken[name]
		b.mu.Unlock()
		if broken {
			return nil, fmt.Errorf("read gs://ci/%s: googleapi: Error 500: backend error", name)
		}
		return inner.Open(ctx, name)
	}
	return b
}

func (b *brokenSource) opens(name string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := b.opened[name]
	clear(b.opened)
	return n
}

// problemTree is a job with a run whose JUnit file cannot be read, a run
// whose JUnit file is cut short, and a good run.
func problemTree(t *testing.T) (*brokenSource, string) {
	t.Helper()
	const job = "periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade"
	files := map[string]string{}
	for i, id := range []string{"2125900000000000001", "2125900000000000002", "2125900000000000003"} {
		dir := "logs/" + job + "/" + id + "/"
		ts := 1795600000 + int64(i)*3600 // 2026-11-26
		files[dir+"started.json"] = fmt.Sprintf(`{"timestamp":%d}`, ts)
		files[dir+"finished.json"] = fmt.Sprintf(`{"timestamp":%d,"passed":true,"result":"SUCCESS"}`, ts+3000)
		files[dir+"artifacts/junit_operator.xml"] = `<testsuite name="operator"><testcase name="Run multi-stage test e2e-aws-ovn-upgrade" time="2999"/></testsuite>`
	}
	broken := "logs/" + job + "/2125900000000000001/artifacts/junit_operator.xml"
	files["logs/"+job+"/2125900000000000002/artifacts/junit_operator.xml"] = `<testsuite name="operator"><testcase name="Run multi-stage test e2e-aws-ovn-upgrade" time="2999"/><testcase na`
	dir, err := mirror.New(writeTree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	return newBrokenSource(dir, broken), broken
}

// TestGiveUpOnUnreadableRun: a run whose object stays unreadable fails the
// crawls that try it, until the third gives up on it; later crawls leave it
// alone and succeed; --retry-given-up reads it again. A run with a
// malformed file is counted as such and fails no crawl.
func TestGiveUpOnUnreadableRun(t *testing.T) {
	src, broken := problemTree(t)
	d := openDB(t)
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	cfg := Config{Since: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Now: func() time.Time { return now }}
	state := func() string {
		return strings.Join(query(t, d, `SELECT build_id, fetch_status, fetch_attempts, given_up_at IS NOT NULL FROM runs WHERE fetch_status <> 'complete'`), ",")
	}
	for i := 1; i <= 3; i++ {
		sum, err := New(src, d, cfg).Run(t.Context())
		if !errors.Is(err, ErrRunsFailed) || sum.Errors != 1 {
			t.Fatalf("crawl %d: %+v, %v; want one run with errors", i, sum, err)
		}
		if sum.Problems != map[int]int{1: 1, 2: 0, 3: 0}[i] {
			t.Errorf("crawl %d: %d runs with parse problems, want the cut JUnit file's once, when it is read", i, sum.Problems)
		}
		if got := src.opens(broken); got != 1 {
			t.Errorf("crawl %d opened the unreadable object %d times, want once", i, got)
		}
		wantState := fmt.Sprintf("2125900000000000001|partial|%d|%d", i, map[bool]int{true: 1}[i == 3])
		if got := state(); got != wantState {
			t.Errorf("after crawl %d: %s, want %s", i, got, wantState)
		}
		if gaveUp := strings.Contains(err.Error(), "given up after 3 crawls"); gaveUp != (i == 3) || sum.GivenUp != map[bool]int{true: 1}[i == 3] {
			t.Errorf("crawl %d: %q, %d given up; want the third to give up, and say how to retry", i, err, sum.GivenUp)
		}
	}
	if !strings.Contains(fmt.Sprint(New(src, d, cfg).failures(Summary{Errors: 1, GivenUp: 1})), "crawl --retry-given-up") {
		t.Error("the give-up message names no command to retry")
	}

	// Given up: no longer read, no longer failing the crawl.
	sum, err := New(src, d, cfg).Run(t.Context())
	if err != nil || sum.Errors != 0 || src.opens(broken) != 0 {
		t.Fatalf("crawl after giving up: %+v, %v; want nothing read and no error", sum, err)
	}
	counts, problems, err := d.RunProblems(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if counts.GivenUp != 1 || counts.Unreadable != 0 || counts.Malformed != 1 || len(problems) != 2 ||
		problems[0].BuildID != 2125900000000000001 || problems[0].GivenUpAt.IsZero() || problems[0].Kind != "read" ||
		problems[1].BuildID != 2125900000000000002 || problems[1].Kind != "parse" {
		t.Errorf("problems %+v %+v", counts, problems)
	}

	// Retried once the object can be read: complete, the count reset.
	delete(src.broken, broken)
	cfg.RetryGivenUp = true
	if sum, err := New(src, d, cfg).Run(t.Context()); err != nil || sum.Updated != 1 || src.opens(broken) != 1 {
		t.Fatalf("retry: %+v, %v", sum, err)
	}
	if got := query(t, d, `SELECT fetch_status, fetch_attempts, given_up_at FROM runs WHERE build_id = 2125900000000000001`); len(got) != 1 || got[0] != "complete|0|NULL" {
		t.Errorf("after the retry: %v", got)
	}
}
