package crawler

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/artifact"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/internal/sourcetest"
	"github.com/openshift-eng/prowcrawl/mirror"
	"github.com/openshift-eng/prowcrawl/prow"
)

// gateSource serves objects from memory. Every Open waits until want opens
// are under way at once (or a second has passed, which fails the test), so
// a reader that opens one object at a time is caught.
type gateSource struct {
	*sourcetest.Source
	t       testing.TB
	objects map[string][]byte
	want    int
	fail    map[string]error

	mu     sync.Mutex
	open   int
	peak   int
	opened []string
	all    chan struct{}
}

func newGateSource(t testing.TB, want int, objects map[string][]byte) *gateSource {
	g := &gateSource{t: t, objects: objects, want: want, fail: map[string]error{}, all: make(chan struct{})}
	g.Source = &sourcetest.Source{BucketFunc: func() string { return "gate" }, ListFunc: g.list, OpenFunc: g.serve}
	return g
}

func (g *gateSource) list(ctx context.Context, q prowcrawl.Query) ([]prowcrawl.Entry, error) {
	var out []prowcrawl.Entry
	for name, b := range g.objects {
		if strings.HasPrefix(name, q.Prefix) {
			out = append(out, prowcrawl.Entry{Name: name, Size: int64(len(b))})
		}
	}
	return out, nil
}

func (g *gateSource) serve(ctx context.Context, name string) (io.ReadCloser, error) {
	g.mu.Lock()
	g.open++
	g.peak = max(g.peak, g.open)
	g.opened = append(g.opened, name)
	if g.open == g.want {
		close(g.all)
	}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.open--
		g.mu.Unlock()
	}()
	select {
	case <-g.all:
	case <-time.After(time.Second):
		g.t.Errorf("open %s: only %d objects requested at once, want %d", name, g.peak, g.want)
	}
	if err := g.fail[name]; err != nil {
		return nil, err
	}
	b, ok := g.objects[name]
	if !ok {
		return nil, prowcrawl.ErrNotExist
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func (g *gateSource) entries(names ...string) []prowcrawl.Entry {
	var out []prowcrawl.Entry
	for _, n := range names {
		out = append(out, prowcrawl.Entry{Name: n, Size: int64(len(g.objects[n]))})
	}
	return out
}

func testCrawler(src prowcrawl.Source, concurrency int) *Crawler {
	return New(src, nil, Config{Concurrency: concurrency})
}

func gzipped(t testing.TB, s string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readFile reads a whole file of a run.
func readFile(t testing.TB, f artifact.File) ([]byte, error) {
	t.Helper()
	rc, err := f.Open(t.Context())
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// TestAheadOpensAtOnce checks that a run's small objects are requested at
// once, before the first is read, and read back with their content (gzip
// undone) and counts.
func TestAheadOpensAtOnce(t *testing.T) {
	src := newGateSource(t, 4, map[string][]byte{
		"r/a.json":    []byte(`{"a":1}`),
		"r/b.xml":     []byte(`<testsuite/>`),
		"r/c.log.gz":  gzipped(t, "line one\nline two\n"),
		"r/d.json":    []byte(`{"d":4}`),
		"r/unread.gz": []byte("never asked for"),
	})
	c := testCrawler(src, 8)
	var count counter
	run := c.runOf("r/", src.entries("r/a.json", "r/b.xml", "r/c.log.gz", "r/d.json", "r/unread.gz"), &count)
	release := run.Ahead.ReadAhead(t.Context(), run.Files[:4])
	defer release()
	for i, want := range []struct{ name, content string }{
		{"a.json", `{"a":1}`}, {"b.xml", `<testsuite/>`}, {"c.log.gz", "line one\nline two\n"}, {"d.json", `{"d":4}`},
	} {
		if run.Files[i].Name() != want.name {
			t.Fatalf("file %d is %s, want %s", i, run.Files[i].Name(), want.name)
		}
		b, err := readFile(t, run.Files[i])
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want.content {
			t.Errorf("%s = %q, want %q", want.name, b, want.content)
		}
	}
	if src.peak != 4 {
		t.Errorf("at most %d objects were requested at once, want 4", src.peak)
	}
	if n := count.objects.Load(); n != 4 {
		t.Errorf("run counted %d objects, want 4", n)
	}
	if n, want := count.bytes.Load(), int64(len(`{"a":1}`+`<testsuite/>`+"line one\nline two\n"+`{"d":4}`)); n != want {
		t.Errorf("run counted %d bytes, want %d (decompressed)", n, want)
	}
	release()
	if !c.ahead.TryAcquire(16 * aheadMaxSize) {
		t.Error("budget not given back after release")
	}
}

// TestAheadBounds checks the bounds of reading ahead: no object larger
// than aheadMaxSize (those are opened when taken), none beyond the byte
// budget (those too), objects never opened dropped with their budget
// returned, and an object opened twice read again.
func TestAheadBounds(t *testing.T) {
	objs := map[string][]byte{"r/big.log": bytes.Repeat([]byte("x"), aheadMaxSize+1)}
	var names []string
	for i := range 12 {
		n := fmt.Sprintf("r/%02d.json", i)
		objs[n] = bytes.Repeat([]byte{'0' + byte(i%10)}, 100<<10)
		names = append(names, n)
	}
	src := newGateSource(t, 8, objs)
	c := testCrawler(src, 32)
	// A budget of eight small objects: the other four are left to stream.
	c.ahead = newBudget(8 * 100 << 10)
	var count counter
	run := c.runOf("r/", src.entries(append([]string{"r/big.log"}, names...)...), &count)
	release := run.Ahead.ReadAhead(t.Context(), run.Files)
	deadline := time.Now().Add(5 * time.Second)
	for {
		src.mu.Lock()
		n := len(src.opened)
		src.mu.Unlock()
		if n >= 8 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // a budget overrun would show now
	src.mu.Lock()
	opened := append([]string(nil), src.opened...)
	src.mu.Unlock()
	if len(opened) != 8 {
		t.Fatalf("%d objects read ahead before any was taken, want the budget's 8: %v", len(opened), opened)
	}
	for _, n := range opened {
		if n == "r/big.log" {
			t.Fatal("an object over aheadMaxSize was read ahead")
		}
	}
	b, err := readFile(t, run.Files[0])
	if err != nil || len(b) != aheadMaxSize+1 {
		t.Fatalf("big log: %d bytes, %v", len(b), err)
	}
	// A file read ahead, then the same again, and one beyond the budget.
	for _, i := range []int{3, 3, 11} {
		if b, err := readFile(t, run.Files[i]); err != nil || !bytes.Equal(b, objs[names[i-1]]) {
			t.Fatalf("%s: %d bytes, %v", names[i-1], len(b), err)
		}
	}
	release()
	if n := count.objects.Load(); n != 4 {
		t.Errorf("run counted %d objects, want 4 (dropped ones are not read)", n)
	}
	if !c.ahead.TryAcquire(8 * 100 << 10) {
		t.Error("budget not given back after release")
	}
}

// TestAheadErrors checks that a failed download reaches the reader as the
// error of that object only, and that a body longer or shorter than listed
// fails its size check.
func TestAheadErrors(t *testing.T) {
	src := newGateSource(t, 3, map[string][]byte{
		"r/a.json": []byte(`{}`), "r/b.json": []byte(`{"b":2}`), "r/c.json": []byte(`{"c":3}`),
	})
	boom := errors.New("connection reset by peer")
	src.fail["r/a.json"] = boom
	c := testCrawler(src, 8)
	plan := src.entries("r/a.json", "r/b.json", "r/c.json")
	plan[2].Size = 3 // the listing said 3 bytes; the body has 7
	run := c.runOf("r/", plan, nil)
	defer run.Ahead.ReadAhead(t.Context(), run.Files)()
	if _, err := readFile(t, run.Files[0]); !errors.Is(err, boom) {
		t.Errorf("a.json: %v, want the reset", err)
	}
	if b, err := readFile(t, run.Files[1]); err != nil || string(b) != `{"b":2}` {
		t.Errorf("b.json: %q, %v", b, err)
	}
	if _, err := readFile(t, run.Files[2]); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("c.json with a wrong listed size: %v, want ErrUnexpectedEOF", err)
	}
}

// TestAheadCrawlEqual checks that reading ahead changes nothing of what a
// crawl stores: the sample bucket crawled with concurrency 1 (one object
// at a time) and 16 gives equal databases.
func TestAheadCrawlEqual(t *testing.T) {
	t.Parallel()
	src, err := mirror.New(sampleDir)
	if err != nil {
		t.Fatal(err)
	}
	var dumps []string
	for _, conc := range []int{1, 16} {
		path := filepath.Join(t.TempDir(), "a.db")
		d, err := db.Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		cfg := shortSample(sampleConfig())
		cfg.Concurrency = conc
		if _, err := New(src, d, cfg).Run(t.Context()); err != nil && !errors.Is(err, ErrRunsFailed) {
			t.Fatal(err)
		}
		dumps = append(dumps, dumpDB(t, d))
		d.Close()
	}
	if dumps[0] != dumps[1] {
		t.Errorf("crawls with concurrency 1 and 16 differ:\n%s", firstDiff(dumps[0], dumps[1]))
	}
}

// gatedOpens passes a run's downloads on only once want of them are asked
// for at once (or fails the test after a second), to tell a run read in
// one go from one read in steps.
type gatedOpens struct {
	*sourcetest.Source
	t    testing.TB
	run  string
	want int

	mu   sync.Mutex
	n    int
	peak int
	all  chan struct{}
}

func newGatedOpens(t testing.TB, inner prowcrawl.Source, run string, want int) *gatedOpens {
	g := &gatedOpens{Source: sourcetest.Wrap(inner), t: t, run: run, want: want, all: make(chan struct{})}
	g.OpenFunc = func(ctx context.Context, name string) (io.ReadCloser, error) {
		if strings.HasPrefix(name, g.run) {
			g.gate(name)
		}
		return inner.Open(ctx, name)
	}
	return g
}

// gate waits until want downloads of the run are asked for at once.
func (g *gatedOpens) gate(name string) {
	g.mu.Lock()
	g.n++
	g.peak = max(g.peak, g.n)
	if g.n == g.want {
		close(g.all)
	}
	g.mu.Unlock()
	select {
	case <-g.all:
	case <-time.After(time.Second):
		g.t.Errorf("open %s: %d downloads of the run asked for at once, want %d", name, g.peak, g.want)
	}
	g.mu.Lock()
	g.n--
	g.mu.Unlock()
}

// TestRunReadInOneGo: a finished run whose id dates it well inside the
// crawl's window asks for its metadata and every other object it needs at
// once; one that is not (a sequential id) asks for its metadata first.
func TestRunReadInOneGo(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	files := func(dir string) map[string]string {
		return map[string]string{
			dir + "started.json":  started(t0),
			dir + "finished.json": finished(t0.Add(time.Hour), "FAILURE"),
			dir + "prowjob.json":  `{"status": {"state": "failure"}}`,
			dir + "build-log.txt": "Missing CNI default network\n",
			dir + "artifacts/e2e/openshift-e2e-test/artifacts/junit/junit_a.xml":       junitWithFlake,
			dir + "artifacts/e2e/openshift-e2e-test/artifacts/junit/junit_b.xml":       junitWithFlake,
			dir + "artifacts/e2e/gather-extra/artifacts/clusterversion.json":           `{"items": []}`,
			dir + "artifacts/e2e/openshift-e2e-test/artifacts/junit/e2e-events_1.json": `{"items": []}`,
		}
	}
	for _, tc := range []struct {
		name string
		id   int64
		want int // asked for at once, at first
		peak int // at most at once
	}{
		{"snowflake id", prow.MinBuildIDAt(t0.Add(-time.Minute)) + 1, 8, 8},
		{"sequential id", 14098, 3, 3}, // the metadata, alone
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := fmt.Sprintf("logs/%s/%d/", hostileJob, tc.id)
			root, err := mirror.New(writeTree(t, files(dir)))
			if err != nil {
				t.Fatal(err)
			}
			src := newGatedOpens(t, root, dir, tc.want)
			d := openDB(t)
			cfg := Config{Jobs: upgradeJobs, Since: t0.Add(-30 * 24 * time.Hour), Rules: builtinRules}
			if _, err := New(src, d, cfg).Run(t.Context()); err != nil {
				t.Fatal(err)
			}
			if got := query(t, d, `SELECT result, fetch_status, objects_read, (SELECT count(*) FROM tests) FROM runs`); len(got) != 1 || got[0] != "failure|complete|8|2" {
				t.Errorf("run %v, want failure|complete|8|2", got)
			}
			if src.peak != tc.peak {
				t.Errorf("at most %d downloads at once, want %d", src.peak, tc.peak)
			}
		})
	}
}
