package cache

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/openshift-eng/prowcrawl/artifact"
)

// Artifact is the run as the cache holds it, as the value every reader of
// a run takes (a crawl hands artifact.Read the same value from a bucket):
// an artifact.Run of its whole listing, whose cached files open from the
// cache and whose other files fail with ErrNotCached. A file's content is
// as the crawl read it, decompressed. Every file that could not be opened,
// or whose content turned out damaged, is told by Missed. The value reads
// the run's file: use it before Close.
func (r *Run) Artifact() artifact.Run {
	var files []artifact.File
	for _, f := range r.Files() {
		files = append(files, cachedFile{f: f, run: r})
	}
	return artifact.Run{Dir: r.key.Path + "/", Files: files}
}

// Missed says which files of the run's Artifact could not be read whole
// (not cached, or damaged), in the order they failed, and whether one was
// damaged: a run that is, is worth removing so that the next crawl stores
// it anew.
func (r *Run) Missed() (names []string, damaged bool) {
	r.misses.mu.Lock()
	defer r.misses.mu.Unlock()
	return append([]string(nil), r.misses.names...), r.misses.damaged
}

// missed collects the files of a cached run that could not be read.
type missed struct {
	mu      sync.Mutex
	names   []string
	damaged bool
}

func (m *missed) add(name string, err error) {
	m.mu.Lock()
	m.names = append(m.names, name)
	m.damaged = m.damaged || errors.Is(err, ErrDamaged)
	m.mu.Unlock()
}

// cachedFile is a file of a cached run.
type cachedFile struct {
	f   File
	run *Run
}

func (f cachedFile) Name() string { return f.f.Name }

func (f cachedFile) Size() int64 {
	switch {
	case f.f.Cached:
		return f.f.Stored
	case f.f.Encoding != "":
		return -1
	}
	return f.f.Size
}

func (f cachedFile) Open(ctx context.Context) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rc, err := f.run.Open(f.f.Name)
	if err != nil {
		f.run.misses.add(f.f.Name, err)
		return nil, err
	}
	return &cachedReader{rc: rc, f: f}, nil
}

// cachedReader reports damage found at the end of a file's content.
type cachedReader struct {
	rc io.ReadCloser
	f  cachedFile
}

func (r *cachedReader) Read(p []byte) (int, error) {
	n, err := r.rc.Read(p)
	if err != nil && errors.Is(err, ErrDamaged) {
		r.f.run.misses.add(r.f.f.Name, err)
	}
	return n, err
}

func (r *cachedReader) Close() error { return r.rc.Close() }
