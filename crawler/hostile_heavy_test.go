package crawler

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/internal/sourcetest"
	"github.com/openshift-eng/prowcrawl/internal/testutil"
	"github.com/openshift-eng/prowcrawl/mirror"
)

// genSource is a source whose objects, beyond those of the wrapped one,
// are made on the fly: a test can read gigabytes without storing them.
func genSource(inner prowcrawl.Source, gen map[string]generated) *sourcetest.Source {
	s := sourcetest.Wrap(inner)
	s.ListFunc = func(ctx context.Context, q prowcrawl.Query) ([]prowcrawl.Entry, error) {
		ents, err := inner.List(ctx, q)
		if err != nil || q.Delimiter != "" {
			return ents, err
		}
		for name, o := range gen {
			if strings.HasPrefix(name, q.Prefix) {
				ents = append(ents, prowcrawl.Entry{Name: name, Size: o.size})
			}
		}
		slices.SortFunc(ents, func(a, b prowcrawl.Entry) int { return strings.Compare(a.Name, b.Name) })
		return ents, nil
	}
	s.OpenFunc = func(ctx context.Context, name string) (io.ReadCloser, error) {
		if o, ok := gen[name]; ok {
			return io.NopCloser(o.open()), nil
		}
		return inner.Open(ctx, name)
	}
	return s
}

type generated struct {
	size int64
	open func() io.Reader
}

// repeatReader gives block again and again, then tail: size bytes in all.
type repeatReader struct {
	block, tail []byte
	left        int64 // bytes before the tail
	off         int
}

func newRepeatReader(block, tail []byte, size int64) *repeatReader {
	return &repeatReader{block: block, tail: tail, left: size - int64(len(tail))}
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		if len(r.tail) == 0 {
			return 0, io.EOF
		}
		n := copy(p, r.tail)
		r.tail = r.tail[n:]
		return n, nil
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.block[r.off:])
		n += c
		r.off = (r.off + c) % len(r.block)
	}
	r.left -= int64(n)
	return n, nil
}

// hugeRun is a finished run whose build log the test makes up.
func hugeRun(t *testing.T, log generated) (prowcrawl.Source, string) {
	t.Helper()
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	dir := "logs/" + hostileJob + "/1/"
	root, err := mirror.New(writeTree(t, map[string]string{
		dir + "started.json":  started(t0),
		dir + "finished.json": finished(t0.Add(time.Hour), "FAILURE"),
		dir + "artifacts/e2e/openshift-e2e-test/artifacts/junit/junit_upgrade_1.xml": junitWithFlake,
	}))
	if err != nil {
		t.Fatal(err)
	}
	return genSource(root, map[string]generated{dir + "build-log.txt": log}), dir
}

// The lines are dated within the run (it starts Nov 20 10:00): a time it
// cannot have is a parse problem.
const hugeLogBlock = `Nov 20 10:58:46.230 I ns/openshift-etcd pod/etcd-ip-10-0-1-2 node/ip-10-0-1-2 reason/Created
Nov 20 10:58:47.001 W ns/openshift-kube-apiserver pod/kube-apiserver-ip-10-0-1-2 node/ip-10-0-1-2 reason/ProbeError Readiness probe error: HTTP probe failed with statuscode: 500
I1120 10:11:02.941578       1 clientconn.go:1120] grpc: addrConn.createTransport failed to connect to {https://10.0.61.114:2380 0 <nil>}
STEP: Destroying namespace "e2e-test-1234" for this suite.
` + "\x1b[1mpassed\x1b[0m [sig-network] Services should serve a basic endpoint from pods\n"

// TestHugeLogMemory crawls a run whose build log is 1 GiB (made on the
// fly, never stored) with the built-in rules, and measures the heap: it
// must stay flat, and the symptom on the log's last line must be found.
func TestHugeLogMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("streams 1 GiB through every rule; run without -race")
	}
	const size = 1 << 30
	tail := []byte("dial tcp 10.0.61.114:2379: connect: connection refused\n")
	src, _ := hugeRun(t, generated{size: size, open: func() io.Reader {
		return newRepeatReader([]byte(hugeLogBlock), tail, size)
	}})
	d := openDB(t)
	cfg := Config{Jobs: upgradeJobs, Since: time.Date(2026, 11, 19, 0, 0, 0, 0, time.UTC), Rules: builtinRules}
	var sum Summary
	var err error
	start := time.Now()
	mem := testutil.MemoryPeak(func() { sum, err = New(src, d, cfg).Run(t.Context()) })
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("1 GiB log: %d MiB read in %s; %v", sum.Bytes>>20, took.Round(time.Millisecond), mem)
	if mem.Heap > 100<<20 {
		t.Errorf("%v; want the heap under 100 MiB", mem)
	}
	if got := query(t, d, `SELECT fetch_status, (SELECT group_concat(symptom_id) FROM run_symptoms), (SELECT count(*) FROM run_errors) FROM runs`); len(got) != 1 || got[0] != "complete|etcd-connection-refused|0" {
		t.Errorf("run %q, want complete, with the symptom of the last line and no errors", got)
	}
}

// TestLongLineMemory: a build log that is one 50 MiB line, followed by an
// ordinary one. The long line is matched on its first 64 KiB, the next is
// matched whole, and the heap stays flat.
func TestLongLineMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("streams 50 MiB through every rule; run without -race")
	}
	head := "E1118 03:11:02.941578 rpc error: code = Unavailable desc = transport is closing "
	next := "\ndial tcp 10.0.61.114:2379: connect: connection refused\n"
	const size = 50 << 20
	src, _ := hugeRun(t, generated{size: size, open: func() io.Reader {
		return io.MultiReader(strings.NewReader(head), newRepeatReader([]byte("x"), []byte(next), size-int64(len(head))))
	}})
	d := openDB(t)
	cfg := Config{Jobs: upgradeJobs, Since: time.Date(2026, 11, 19, 0, 0, 0, 0, time.UTC), Rules: builtinRules}
	var err error
	mem := testutil.MemoryPeak(func() { _, err = New(src, d, cfg).Run(t.Context()) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("50 MiB line: %v", mem)
	if mem.Heap > 100<<20 {
		t.Errorf("%v; want the heap under 100 MiB", mem)
	}
	got := query(t, d, `SELECT group_concat(symptom_id) FROM (SELECT symptom_id FROM run_symptoms ORDER BY 1)`)
	if got[0] != "etcd-connection-refused,etcd-transport-closing" {
		t.Errorf("symptoms %q, want both lines' symptoms", got)
	}
}
