package cache

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// logLines makes n lines that look like an upgrade run's step log.
func logLines(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "Jan 12 20:%02d:%02d.%03d I ns/openshift-etcd pod/etcd-ip-10-0-%d-%d node/ip-10-0-%d-%d reason/Probe readiness probe failed: dial tcp 10.0.%d.%d:2379: connect: connection refused\n",
			i/60%60, i%60, r.IntN(1000), r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(256))
	}
	return b.Bytes()
}

func openCache(t *testing.T, max int64) *Cache {
	t.Helper()
	c, err := Open(filepath.Join(t.TempDir(), "cache"), max)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var key = Key{Bucket: "test-platform-results", Path: "logs/periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade/1735123456789012345"}

func readAllObj(t *testing.T, r *Run, name string) []byte {
	t.Helper()
	rc, err := r.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return b
}

// commitOpen commits w, the writer of k in c, and opens the run it wrote,
// closed when the test ends.
func commitOpen(t *testing.T, c *Cache, w *Writer, k Key) *Run {
	t.Helper()
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	r, err := c.Open(k)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestRoundTrip(t *testing.T) {
	c := openCache(t, 0)
	files := map[string][]byte{
		"started.json":  []byte(`{"timestamp":1700000000}`),
		"finished.json": []byte(`{"timestamp":1700003600,"passed":false,"result":"FAILURE"}`),
		"build-log.txt": logLines(1, 5000),
		"artifacts/e2e-aws-ovn-upgrade/openshift-e2e-test/artifacts/junit/junit_e2e.xml": []byte(`<testsuite name="openshift-tests"><testcase name="a"/></testsuite>`),
		"empty.txt": {},
	}
	w, err := c.Create(key)
	if err != nil {
		t.Fatal(err)
	}
	started := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	w.SetStarted(started)
	listing := []File{{Name: "not-read/pod.log", Size: 1234, Encoding: "gzip"}}
	for name, b := range files {
		listing = append(listing, File{Name: name, Size: int64(len(b))})
		if err := w.Put(name, bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
	}
	w.SetListing(listing)
	if c.Has(key) {
		t.Fatal("run visible before Commit")
	}
	r := commitOpen(t, c, w, key)
	if !r.Listed() || !r.Started().Equal(started) {
		t.Errorf("listed %v started %v", r.Listed(), r.Started())
	}
	got := r.Files()
	if len(got) != len(files)+1 {
		t.Fatalf("%d files, want %d", len(got), len(files)+1)
	}
	for i := 1; i < len(got); i++ {
		if got[i-1].Name >= got[i].Name {
			t.Errorf("files not in name order: %q before %q", got[i-1].Name, got[i].Name)
		}
	}
	for _, f := range got {
		want, ok := files[f.Name]
		if !ok {
			if f.Cached || f.Size != 1234 || f.Encoding != "gzip" {
				t.Errorf("listed-only file %+v", f)
			}
			if _, err := r.Open(f.Name); !errors.Is(err, ErrNotCached) {
				t.Errorf("open of a listed-only file: %v, want ErrNotCached", err)
			}
			continue
		}
		if !f.Cached || f.Stored != int64(len(want)) {
			t.Errorf("%s: %+v", f.Name, f)
		}
		if b := readAllObj(t, r, f.Name); !bytes.Equal(b, want) {
			t.Errorf("%s: content differs (%d bytes, want %d)", f.Name, len(b), len(want))
		}
	}
	n := 0
	for obj, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(obj.Content)
		if !bytes.Equal(b, files[obj.Name]) {
			t.Errorf("All: %s differs", obj.Name)
		}
		n++
	}
	if n != len(files) {
		t.Errorf("All yielded %d objects, want %d", n, len(files))
	}
	if err := r.Verify(); err != nil {
		t.Fatal(err)
	}
	// The log compresses: the run file is far smaller than its content.
	if r.Size()*5 > int64(len(files["build-log.txt"])) {
		t.Errorf("run file %d bytes for a %d-byte log", r.Size(), len(files["build-log.txt"]))
	}
	st, err := os.Stat(filepath.Join(c.Dir(), runsDir, key.Bucket, key.Path+runExt))
	if err != nil || !st.ModTime().Equal(started) {
		t.Errorf("run file time %v, want the run's start %v (%v)", st.ModTime(), started, err)
	}
}

// TestTee stores what is read through a tee only when it was read to its
// end from a source that did not fail.
func TestTee(t *testing.T) {
	c := openCache(t, 0)
	big := make([]byte, 3*spillAt) // incompressible: spills to a file
	cc := rand.NewChaCha8([32]byte{7})
	cc.Read(big)
	log := logLines(2, 3000)
	w, _ := c.Create(key)
	read := func(name string, src io.ReadCloser, n int) {
		t.Helper()
		rc := w.Tee(name, src)
		var err error
		if n < 0 {
			_, err = io.Copy(io.Discard, rc)
		} else {
			_, err = io.CopyN(io.Discard, rc, int64(n))
		}
		if err != nil && !strings.Contains(err.Error(), "cut") {
			t.Fatalf("%s: %v", name, err)
		}
		rc.Close()
	}
	read("whole.log", io.NopCloser(bytes.NewReader(log)), -1)
	read("big.bin", io.NopCloser(bytes.NewReader(big)), -1)
	read("early.log", io.NopCloser(bytes.NewReader(log)), 100)
	read("cut.log", io.NopCloser(io.MultiReader(bytes.NewReader(log[:500]), errReader{})), -1)
	r := commitOpen(t, c, w, key)
	var names []string
	for _, f := range r.Files() {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "big.bin whole.log" {
		t.Fatalf("cached %q, want only the objects read whole", got)
	}
	if !bytes.Equal(readAllObj(t, r, "big.bin"), big) || !bytes.Equal(readAllObj(t, r, "whole.log"), log) {
		t.Fatal("content differs")
	}
	if ents, _ := os.ReadDir(filepath.Join(c.Dir(), tmpDir)); len(ents) != 0 {
		t.Errorf("%d temporary files left after Commit", len(ents))
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset: cut") }

// writeRun stores a run with one log.
func writeRun(t *testing.T, c *Cache, k Key, started time.Time, log []byte) {
	t.Helper()
	w, err := c.Create(k)
	if err != nil {
		t.Fatal(err)
	}
	w.SetStarted(started)
	if err := w.Put("build-log.txt", bytes.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestDamage flips bytes and cuts files: every damage is found, none is
// handed out as content.
func TestDamage(t *testing.T) {
	log := logLines(3, 4000)
	cases := []struct {
		name    string
		damage  func(b []byte) []byte
		atOpen  bool // the run itself cannot be opened
		wantErr error
	}{
		{"frame byte", func(b []byte) []byte { b[headerSize+100] ^= 0x40; return b }, false, ErrDamaged},
		{"index byte", func(b []byte) []byte { b[len(b)-trailerSize-5] ^= 1; return b }, true, ErrDamaged},
		{"trailer", func(b []byte) []byte { b[len(b)-1] = 'x'; return b }, true, ErrDamaged},
		{"cut short", func(b []byte) []byte { return b[:len(b)/2] }, true, ErrDamaged},
		{"empty", func(b []byte) []byte { return nil }, true, ErrDamaged},
		{"zeroed tail", func(b []byte) []byte { clear(b[len(b)-4096:]); return b }, true, ErrDamaged},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := openCache(t, 0)
			writeRun(t, c, key, time.Now(), log)
			p, _ := c.file(key)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, tc.damage(b), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := c.Open(key)
			if tc.atOpen {
				if !errors.Is(err, tc.wantErr) || !errors.Is(err, ErrNotCached) {
					t.Fatalf("Open: %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := r.Open("build-log.txt"); !errors.Is(err, tc.wantErr) {
				t.Fatalf("Open(build-log.txt): %v, want %v", err, tc.wantErr)
			}
			if err := r.Verify(); !errors.Is(err, ErrDamaged) {
				t.Fatalf("Verify: %v", err)
			}
			for _, err := range r.All() {
				if !errors.Is(err, ErrDamaged) {
					t.Fatalf("All: %v", err)
				}
			}
		})
	}
}

func TestNotCached(t *testing.T) {
	c := openCache(t, 0)
	if _, err := c.Open(key); !errors.Is(err, ErrNotCached) || errors.Is(err, ErrDamaged) {
		t.Fatalf("Open of an absent run: %v", err)
	}
	for _, k := range []Key{{"b", "../x"}, {"b", "logs/../../x"}, {"", "logs/j/1"}, {"a/b", "logs/j/1"}, {"b", "/abs"}, {"b", "logs/j/1.run"}, {"b", "logs\\j"}} {
		if _, err := c.Create(k); err == nil {
			t.Errorf("Create(%v) accepted", k)
		}
		if _, err := c.Open(k); err == nil || errors.Is(err, ErrNotCached) {
			t.Errorf("Open(%v): %v, want a bad-name error", k, err)
		}
	}
}

// TestEvictOldestFirst fills a cache past its size: the runs that started
// first go, the newest stay, and the cache ends under its size.
func TestEvictOldestFirst(t *testing.T) {
	c := openCache(t, 0) // sized below after one run is measured
	log := logLines(4, 300)
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	probe := Key{Bucket: "b", Path: "logs/probe/1"}
	writeRun(t, c, probe, base, log)
	s, _ := c.Stats()
	one := s.Bytes
	c.Remove(probe)
	c.max = 10*one + one/2 // ten runs fit
	// Written in shuffled order: eviction goes by start, not by write.
	order := rand.New(rand.NewPCG(5, 5)).Perm(25)
	for _, i := range order {
		writeRun(t, c, Key{Bucket: "b", Path: fmt.Sprintf("logs/job-%d/%d", i%3, 1000+i)}, base.Add(time.Duration(i)*time.Hour), log)
	}
	s, err := c.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if s.Bytes > c.max {
		t.Fatalf("cache holds %d bytes, over its %d", s.Bytes, c.max)
	}
	var kept []int
	for i := range 25 {
		if c.Has(Key{Bucket: "b", Path: fmt.Sprintf("logs/job-%d/%d", i%3, 1000+i)}) {
			kept = append(kept, i)
		}
	}
	if len(kept) == 0 || len(kept) > 10 {
		t.Fatalf("kept %v", kept)
	}
	// What is kept is a run of the newest: from some start on, every one.
	for j, i := range kept {
		if want := 25 - len(kept) + j; i != want {
			t.Fatalf("kept %v, want the %d newest", kept, len(kept))
		}
	}
	if !s.Oldest.Equal(base.Add(time.Duration(kept[0])*time.Hour)) || !s.Newest.Equal(base.Add(24*time.Hour)) {
		t.Errorf("span %v to %v", s.Oldest, s.Newest)
	}
	if s.Runs != len(kept) {
		t.Errorf("Stats.Runs %d, kept %d", s.Runs, len(kept))
	}
}

// TestReplaceWhileRead replaces and evicts a run while a reader holds it
// open: the reader goes on reading what it opened.
func TestReplaceWhileRead(t *testing.T) {
	c := openCache(t, 0)
	old, neu := logLines(5, 1000), logLines(6, 1200)
	writeRun(t, c, key, time.Now(), old)
	r, err := c.Open(key)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	writeRun(t, c, key, time.Now(), neu)
	if !bytes.Equal(readAllObj(t, r, "build-log.txt"), old) {
		t.Fatal("an open run changed under its reader")
	}
	r2, err := c.Open(key)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if !bytes.Equal(readAllObj(t, r2, "build-log.txt"), neu) {
		t.Fatal("a run opened after its replacement reads the old one")
	}
	if err := c.Remove(key); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readAllObj(t, r2, "build-log.txt"), neu) {
		t.Fatal("an open run changed when removed")
	}
}

// TestTempCleanup removes what a killed writer left, not what a live one
// holds, and never a name the cache did not make.
func TestTempCleanup(t *testing.T) {
	c := openCache(t, 0)
	dead := filepath.Join(c.Dir(), tmpDir, "run-2810573.tmp")
	if err := os.WriteFile(dead, []byte("half a run"), 0o644); err != nil {
		t.Fatal(err)
	}
	var foreign []string
	for _, name := range []string{"notes.txt", "run-notes.tmp", "obj-.tmp", "thesis.tmp"} {
		p := filepath.Join(c.Dir(), tmpDir, name)
		if err := os.WriteFile(p, []byte("the user's"), 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		os.Chtimes(p, old, old)
		foreign = append(foreign, p)
	}
	defer func() {
		for _, p := range foreign {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s, not the cache's, was removed", filepath.Base(p))
			}
		}
	}()
	live, err := os.CreateTemp(filepath.Join(c.Dir(), tmpDir), "obj-*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if ok, err := tryLock(live); !ok || err != nil {
		t.Skipf("no file locks here: %v", err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(dead, old, old)
	os.Chtimes(live.Name(), old, old)
	ev, err := c.Evict()
	if err != nil {
		t.Fatal(err)
	}
	if ev.Temp != 1 {
		t.Errorf("removed %d temporary files, want 1", ev.Temp)
	}
	if _, err := os.Stat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Error("a dead writer's file is still there")
	}
	if _, err := os.Stat(live.Name()); err != nil {
		t.Errorf("a live writer's file was removed: %v", err)
	}
}

// TestConcurrentReadWrite replaces runs while other goroutines read them:
// a reader sees a whole run, old or new, never a damaged one.
func TestConcurrentReadWrite(t *testing.T) {
	c := openCache(t, 0)
	logs := [][]byte{logLines(8, 200), logLines(9, 300)}
	writeRun(t, c, key, time.Now(), logs[0])
	done := make(chan struct{})
	errs := make(chan error, 4)
	for g := range 3 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				r, err := c.Open(key)
				if err != nil {
					errs <- fmt.Errorf("reader %d: %w", g, err)
					return
				}
				rc, err := r.Open("build-log.txt")
				if err != nil {
					r.Close()
					errs <- fmt.Errorf("reader %d: %w", g, err)
					return
				}
				b, err := io.ReadAll(rc)
				rc.Close()
				r.Close()
				if err != nil || (!bytes.Equal(b, logs[0]) && !bytes.Equal(b, logs[1])) {
					errs <- fmt.Errorf("reader %d: a run neither old nor new (%v)", g, err)
					return
				}
			}
		}()
	}
	for i := range 12 {
		writeRun(t, c, key, time.Now(), logs[i%2])
	}
	close(done)
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpenRefusesForeignDirectory: --cache naming a directory of the
// user's ($HOME, /var) is refused with one sentence, and nothing in it is
// touched; a new, an empty, a tagged directory, and an untagged one that
// holds only a cache's runs/ and tmp/, are caches.
func TestOpenRefusesForeignDirectory(t *testing.T) {
	home := t.TempDir()
	for _, name := range []string{"tmp/draft.txt", "notes.md"} {
		p := filepath.Join(home, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Open(home, 0)
	if !errors.Is(err, ErrNotCache) || !strings.Contains(err.Error(), `"notes.md"`) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Open($HOME) = %v, want ErrNotCache naming what it holds", err)
	}
	if _, err := os.Stat(filepath.Join(home, tagFile)); !errors.Is(err, os.ErrNotExist) {
		t.Error("the refused directory was tagged")
	}
	if _, err := os.Stat(filepath.Join(home, "tmp", "draft.txt")); err != nil {
		t.Errorf("the user's file is gone: %v", err)
	}

	fresh := filepath.Join(t.TempDir(), "new")
	if _, err := Open(fresh, 0); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(fresh, tagFile)); err != nil || !strings.HasPrefix(string(b), tagSignature) {
		t.Fatalf("a new cache is not tagged: %q %v", b, err)
	}
	// Tagged: opened again, whatever else is in it now.
	os.WriteFile(filepath.Join(fresh, "README"), []byte("x"), 0o644)
	if _, err := Open(fresh, 0); err != nil {
		t.Fatalf("a tagged cache: %v", err)
	}
	// A cache made before the tag: runs/ and tmp/ only.
	old := t.TempDir()
	os.MkdirAll(filepath.Join(old, runsDir, "b"), 0o755)
	os.MkdirAll(filepath.Join(old, tmpDir), 0o755)
	if _, err := Open(old, 0); err != nil {
		t.Fatalf("an untagged cache: %v", err)
	}
}

// TestBoundStored: the bound a crawl sets is stored with the cache: a
// reader (status) and a later crawl that names none keep it; one that
// names another replaces it. Before, status always showed 10.0 GiB.
func TestBoundStored(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	for _, c := range []struct {
		open, want int64
	}{{0, DefaultMaxBytes}, {500 << 20, 500 << 20}, {0, 500 << 20}, {2 << 30, 2 << 30}, {0, 2 << 30}} {
		cc, err := Open(dir, c.open)
		if err != nil {
			t.Fatal(err)
		}
		if cc.MaxBytes() != c.want {
			t.Errorf("Open(dir, %d).MaxBytes() = %d, want %d", c.open, cc.MaxBytes(), c.want)
		}
	}
	os.WriteFile(filepath.Join(dir, boundFile), []byte("garbage"), 0o644)
	if cc, err := Open(dir, 0); err != nil || cc.MaxBytes() != DefaultMaxBytes {
		t.Errorf("a damaged bound: %v, %v; want the default", cc, err)
	}
}

// TestCopiedCacheKeepsStarts: a cache copied without its file times (cp
// -r: every run file dated the copy's day) still knows when each run
// started, from its index, and evicts the runs that started first. Before,
// it took every run for started today and evicted by name.
func TestCopiedCacheKeepsStarts(t *testing.T) {
	c := openCache(t, 0)
	day := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	keys := []Key{
		{Bucket: "b", Path: "logs/a-job/3"}, // newest, named first
		{Bucket: "b", Path: "logs/z-job/1"}, // oldest, named last
	}
	writeRun(t, c, keys[0], day.AddDate(0, 0, 20), []byte("new"))
	writeRun(t, c, keys[1], day, []byte("old"))
	copied := time.Now().Add(-123456789 * time.Nanosecond)
	for _, k := range keys {
		p, _ := c.file(k)
		if err := os.Chtimes(p, copied, copied); err != nil {
			t.Fatal(err)
		}
	}
	starts := map[Key]time.Time{}
	for e, err := range c.Runs() {
		if err != nil {
			t.Fatal(err)
		}
		starts[e.Key] = e.Started
	}
	if !starts[keys[1]].Equal(day) || !starts[keys[0]].Equal(day.AddDate(0, 0, 20)) {
		t.Fatalf("starts after a copy %v, want those of the indexes", starts)
	}
	// Read once: the file's time is the start again.
	p, _ := c.file(keys[1])
	if fi, _ := os.Stat(p); !fi.ModTime().Equal(day) {
		t.Errorf("the file's time is %v, want the run's start", fi.ModTime())
	}
}
