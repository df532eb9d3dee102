package crawler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/sourcegraph/conc"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/artifact"
)

// Reading ahead: once a run is listed, the objects its reading needs are
// known (artifact.Read says which, through artifact.Ahead), so the small
// ones are downloaded together while the ones before them are parsed, and
// against a distant bucket a run costs a few round trips instead of one
// per object. What is read ahead is held in memory as the source hands it
// out (a mirror's gzip files compressed, a bucket's content-encoded logs
// decompressed), within the crawl's byte budget; an object that does not
// fit, or is too large to read ahead, is streamed when it is opened.
const (
	// aheadMaxSize is the largest object read ahead; larger ones (build
	// logs, large JUnit files) are streamed when their turn comes.
	aheadMaxSize = 1 << 20
	// aheadMinCharge is what an object read ahead costs of the budget at
	// least, so that the budget also bounds how many are held.
	aheadMinCharge = 4 << 10
	// aheadMaxEncoded is the largest content-encoded object read ahead,
	// as stored: it arrives decompressed, in a size the listing does not
	// give, so it is charged what it may expand to (aheadExpand times its
	// stored size, at most aheadMaxSize) until it is in, then what it
	// holds. One that arrives larger than its charge and the budget can
	// spare is dropped and streamed when opened.
	aheadMaxEncoded = aheadMaxSize / aheadExpand
	aheadExpand     = 16
)

// errAheadDropped is the outcome of an object read ahead that turned out
// larger than the budget could hold: it is read again when opened.
var errAheadDropped = errors.New("read ahead dropped")

// newAheadBudget is the bound on the bytes a crawl holds (see budget).
func newAheadBudget(concurrency int) *budget {
	return newBudget(int64(max(16, 2*concurrency)) * aheadMaxSize)
}

// runFiles is a listed run as an artifact.Run: its objects, opened through
// the crawl's reader (and so its request bound), read ahead within the
// crawl's byte budget, counted in count.
type runFiles struct {
	rd     *reader
	budget *budget
	count  *counter

	mu    sync.Mutex // guards the files' ahead
	files []runFile
}

// runFile is one object of a run.
type runFile struct {
	obj   prowcrawl.Entry
	name  string // below the run's directory
	run   *runFiles
	ahead *aheadSlot // read ahead and not yet opened
}

// aheadSlot is an object read ahead.
type aheadSlot struct {
	ready chan struct{} // closed once read or failed
	taken bool          // opened, or dropped: guarded by runFiles.mu
	// Set before ready is closed:
	data []byte // the stored bytes
	held int64  // budget held for data
	err  error
}

var _ artifact.File = (*runFile)(nil)
var _ artifact.Ahead = (*runFiles)(nil)

// runOf is the run whose listing is objs, all under dir ("" or a
// directory ending in a slash). Common prefixes are left out.
func (c *Crawler) runOf(dir string, objs []prowcrawl.Entry, count *counter) artifact.Run {
	rf := &runFiles{rd: c.rd, budget: c.ahead, count: count, files: make([]runFile, 0, len(objs))}
	for _, o := range objs {
		if !o.Prefix && o.Problem == "" {
			rf.files = append(rf.files, runFile{obj: o, name: strings.TrimPrefix(o.Name, dir), run: rf})
		}
	}
	files := make([]artifact.File, len(rf.files))
	for i := range rf.files {
		files[i] = &rf.files[i]
	}
	return artifact.Run{Dir: dir, Files: files, Ahead: rf}
}

// unreadable are the problems of the listed objects that cannot be read
// (see Entry.Problem), which runOf leaves out: each makes the run partial.
func unreadable(objs []prowcrawl.Entry) []prowcrawl.RunError {
	var out []prowcrawl.RunError
	for _, o := range objs {
		if o.Problem != "" {
			out = append(out, prowcrawl.RunError{Object: o.Name, Kind: prowcrawl.ErrorRead, Message: o.Problem})
		}
	}
	return out
}

func (f *runFile) Name() string { return f.name }

func (f *runFile) Size() int64 {
	if !sizeKnown(f.obj) {
		return -1
	}
	return f.obj.Size
}

// Open opens the object: from what was read ahead when it was, else from
// the source.
func (f *runFile) Open(ctx context.Context) (io.ReadCloser, error) {
	rf := f.run
	rf.mu.Lock()
	s := f.ahead
	rf.mu.Unlock()
	if s == nil {
		return rf.rd.open(ctx, f.obj, rf.count)
	}
	select {
	case <-s.ready:
	case <-ctx.Done():
		return nil, context.Cause(ctx) // the slot is dropped with the others
	}
	rf.mu.Lock()
	if s.taken {
		// Opened again, or dropped meanwhile: read it anew.
		rf.mu.Unlock()
		return rf.rd.open(ctx, f.obj, rf.count)
	}
	s.taken = true
	f.ahead = nil
	rf.mu.Unlock()
	if s.err == errAheadDropped {
		return rf.rd.open(ctx, f.obj, rf.count)
	}
	if s.err != nil {
		return nil, s.err
	}
	o, err := rf.rd.decodeHeld(f.obj, s.data, sync.OnceFunc(func() { rf.free(s) }))
	if err != nil {
		return nil, err
	}
	o.count(rf.count)
	return o, nil
}

// ReadAhead starts downloading those of files that are small enough and
// fit in the budget, each holding a request while it downloads. The
// others are streamed when opened. Nothing here waits for budget, so runs
// cannot starve each other into a deadlock.
func (rf *runFiles) ReadAhead(ctx context.Context, files []artifact.File) (release func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg conc.WaitGroup
	type started struct {
		f *runFile
		s *aheadSlot
	}
	var slots []started
	for _, af := range files {
		f, ok := af.(*runFile)
		if !ok || f.run != rf || !aheadable(f.obj) {
			continue
		}
		rf.mu.Lock()
		busy := f.ahead != nil
		rf.mu.Unlock()
		charge := aheadCharge(f.obj)
		if busy || !rf.budget.TryAcquire(charge) {
			continue
		}
		s := &aheadSlot{ready: make(chan struct{}), held: charge}
		rf.mu.Lock()
		f.ahead = s
		rf.mu.Unlock()
		slots = append(slots, started{f, s})
		wg.Go(func() {
			defer close(s.ready)
			rf.fill(ctx, f.obj, s)
		})
	}
	return func() {
		cancel()
		wg.Wait()
		for _, st := range slots {
			rf.mu.Lock()
			drop := !st.s.taken
			if drop {
				st.s.taken = true
				if st.f.ahead == st.s {
					st.f.ahead = nil
				}
			}
			rf.mu.Unlock()
			if drop {
				rf.free(st.s)
			}
		}
	}
}

// aheadable says whether obj is read ahead: one of a known size up to
// aheadMaxSize, or a content-encoded one up to aheadMaxEncoded as stored.
func aheadable(obj prowcrawl.Entry) bool {
	if sizeKnown(obj) {
		return obj.Size <= aheadMaxSize
	}
	return obj.Size >= 0 && obj.Size <= aheadMaxEncoded
}

// aheadCharge is what reading obj ahead takes of the budget until it is in.
func aheadCharge(obj prowcrawl.Entry) int64 {
	if sizeKnown(obj) {
		return max(obj.Size, aheadMinCharge)
	}
	return min(max(aheadExpand*obj.Size, aheadMinCharge), aheadMaxSize)
}

// fill downloads an object read ahead. A content-encoded one that arrives
// larger than its charge takes more of the budget if it can, and is
// dropped (errAheadDropped) if not; once in, it holds what it holds.
func (rf *runFiles) fill(ctx context.Context, obj prowcrawl.Entry, s *aheadSlot) {
	rc, err := rf.rd.src.Open(ctx, obj.Name)
	if err == nil {
		// One byte more than listed, so that a longer body is noticed
		// (by decode's size check) rather than cut to size.
		limit := obj.Size + 1
		if !sizeKnown(obj) {
			limit = aheadMaxSize + 1
		}
		s.data, err = readAhead(rc, limit, sizeKnown(obj))
		rc.Close()
		if err != nil {
			err = fmt.Errorf("read %s: %w", obj.Name, err)
		} else if !sizeKnown(obj) {
			err = rf.refit(s)
		}
	}
	if err != nil {
		rf.free(s)
		s.err = err
	}
}

// readAhead reads at most limit bytes of rc: into a buffer of that size
// when the size is known, so that a download allocates once.
func readAhead(rc io.Reader, limit int64, known bool) ([]byte, error) {
	if !known {
		return io.ReadAll(io.LimitReader(rc, limit))
	}
	buf := bytes.NewBuffer(make([]byte, 0, limit+bytes.MinRead))
	_, err := buf.ReadFrom(io.LimitReader(rc, limit))
	return buf.Bytes(), err
}

// refit makes the budget s holds what its data takes: less than its
// charge gives the rest back, more takes it if the budget can spare it.
func (rf *runFiles) refit(s *aheadSlot) error {
	n := int64(len(s.data))
	if n > aheadMaxSize {
		return errAheadDropped
	}
	need := max(n, aheadMinCharge)
	rf.mu.Lock()
	defer rf.mu.Unlock()
	switch {
	case need < s.held:
		rf.budget.Release(s.held - need)
		s.held = need
	case need > s.held:
		if !rf.budget.TryAcquire(need - s.held) {
			return errAheadDropped
		}
		s.held = need
	}
	return nil
}

// free gives back the budget s holds.
func (rf *runFiles) free(s *aheadSlot) {
	rf.mu.Lock()
	held := s.held
	s.held, s.data = 0, nil
	rf.mu.Unlock()
	if held > 0 {
		rf.budget.Release(held)
	}
}
