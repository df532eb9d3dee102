package cache

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
)

// spillAt is how much of one object's compressed bytes a writer holds in
// memory before it moves them to a temporary file.
const spillAt = 1 << 20

// Writer stores one run. Objects are added while they are read (Tee) or
// whole (Put), from any goroutine; Commit writes the run file and puts it
// in place atomically, replacing what the cache held for the run. Nothing
// is visible to readers before Commit, and nothing after Abort.
type Writer struct {
	c   *Cache
	key Key

	mu      sync.Mutex
	started time.Time
	listing []File
	listed  bool
	objs    map[string]*segment
	spills  []*os.File // every spill file made, closed and removed at the end
	closed  bool
}

// Create starts writing the run named by k.
func (c *Cache) Create(k Key) (*Writer, error) {
	if err := checkKey(k); err != nil {
		return nil, err
	}
	return &Writer{c: c, key: k, objs: map[string]*segment{}}, nil
}

// Key is the run being written.
func (w *Writer) Key() Key { return w.key }

// SetStarted records the run's start: eviction removes the runs that
// started first.
func (w *Writer) SetStarted(t time.Time) {
	w.mu.Lock()
	w.started = t
	w.mu.Unlock()
}

// SetListing records the run's whole listing (names relative to the run's
// directory), read or not: a reader then knows which files of the run the
// cache does not hold. Cached and Stored of the files are ignored.
func (w *Writer) SetListing(files []File) {
	w.mu.Lock()
	w.listing = slices.Clone(files)
	w.listed = true
	w.mu.Unlock()
}

// Tee returns a reader of rc that stores the bytes read through it as the
// content of the object name (relative to the run's directory). Only an
// object read to its end is stored: one closed early, or whose source
// failed, is not. Reading and closing it never fail because of the cache.
func (w *Writer) Tee(name string, rc io.ReadCloser) io.ReadCloser {
	return &tee{rc: rc, w: w, name: name, seg: w.newSegment(name)}
}

// Put stores the content of the object name, read from r to its end.
func (w *Writer) Put(name string, r io.Reader) error {
	s := w.newSegment(name)
	var err error
	if _, err = io.Copy(s, r); err == nil {
		err = s.finish()
	}
	if err != nil {
		s.discard()
		return fmt.Errorf("cache %s: %s: %w", w.key, name, err)
	}
	return w.add(s)
}

// add keeps a finished segment, replacing one of the same name.
func (w *Writer) add(s *segment) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		s.discard()
		return errors.New("cache: writer already committed or aborted")
	}
	if old := w.objs[s.name]; old != nil {
		old.discard()
	}
	w.objs[s.name] = s
	return nil
}

// Abort drops the run; the cache is left as it was.
func (w *Writer) Abort() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.release()
}

// release frees the segments and spill files; w.mu is held.
func (w *Writer) release() {
	w.closed = true
	for _, s := range w.objs {
		s.discard()
	}
	w.objs = nil
	for _, f := range w.spills {
		f.Close()
		os.Remove(f.Name())
	}
	w.spills = nil
}

// Commit writes the run file and puts it in place: synced, renamed over
// any earlier file of the run, and its directory synced. It then evicts
// the oldest runs if the cache has grown past its size. A run with neither
// a listing nor an object is not written.
func (w *Writer) Commit() (err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New("cache: writer already committed or aborted")
	}
	defer w.release()
	if len(w.objs) == 0 && !w.listed {
		return nil
	}
	final, err := w.c.file(w.key)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Join(w.c.dir, tmpDir), "run-*.tmp")
	if err != nil {
		return fmt.Errorf("cache %s: %w", w.key, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	// A temporary file is locked while it is written, so that a cleaner in
	// another process never takes a live one for a dead writer's.
	if _, err := tryLock(f); err != nil {
		return fmt.Errorf("cache %s: lock: %w", w.key, err)
	}
	ix := &index{Bucket: w.key.Bucket, Path: w.key.Path, Started: w.started.UTC(), Stored: w.c.now().UTC(), Listed: w.listed}
	ix.Files = w.entries()
	bw := bufio.NewWriterSize(f, 256<<10)
	off := int64(headerSize)
	if _, err := bw.WriteString(magic); err != nil {
		return fmt.Errorf("cache %s: %w", w.key, err)
	}
	for i := range ix.Files {
		e := &ix.Files[i]
		s := w.objs[e.Name]
		if s == nil {
			continue
		}
		n, err := s.writeTo(bw)
		if err != nil {
			return fmt.Errorf("cache %s: %s: %w", w.key, e.Name, err)
		}
		e.Cached, e.Raw, e.Off, e.Len, e.CRC = true, s.raw, off, n, s.crc.Sum32()
		off += n
	}
	js, err := marshalIndex(ix)
	if err != nil {
		return fmt.Errorf("cache %s: index: %w", w.key, err)
	}
	zix := compress(js)
	t := trailer{off: uint64(off), n: uint64(len(zix)), crc: crc32.Checksum(zix, castagnoli), version: version}
	if _, err := bw.Write(zix); err != nil {
		return fmt.Errorf("cache %s: %w", w.key, err)
	}
	if _, err := bw.Write(t.encode()); err != nil {
		return fmt.Errorf("cache %s: %w", w.key, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("cache %s: %w", w.key, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("cache %s: sync: %w", w.key, err)
	}
	size := off + int64(len(zix)) + trailerSize
	// The file's time is the run's start, to the second: eviction sorts
	// by it. A time with a fraction of a second was not set here (a copy
	// of the cache made without keeping times): Runs reads it from the
	// index then.
	mt := w.started
	if mt.IsZero() {
		mt = ix.Stored
	}
	mt = mt.Truncate(time.Second)
	if err := os.Chtimes(tmp, mt, mt); err != nil {
		return fmt.Errorf("cache %s: %w", w.key, err)
	}
	dir := filepath.Dir(final)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cache %s: %w", w.key, err)
	}
	var old int64
	if st, err := os.Stat(final); err == nil {
		old = st.Size()
	}
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("cache %s: %w", w.key, err)
	}
	f.Close()
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("cache %s: sync: %w", w.key, err)
	}
	w.c.grow(size - old)
	if _, err := w.c.evictIfOver(); err != nil {
		return err
	}
	return nil
}

// entries is the run's index before the frames are placed: the listing,
// or the stored objects alone, in name order (a bucket listing's order).
func (w *Writer) entries() []fileEntry {
	seen := make(map[string]bool, len(w.listing)+len(w.objs))
	var out []fileEntry
	for _, f := range w.listing {
		if seen[f.Name] || f.Name == "" {
			continue
		}
		seen[f.Name] = true
		out = append(out, fileEntry{Name: f.Name, Size: f.Size, Encoding: f.Encoding})
	}
	for name, s := range w.objs {
		if !seen[name] {
			seen[name] = true
			out = append(out, fileEntry{Name: name, Size: s.raw})
		}
	}
	slices.SortFunc(out, func(a, b fileEntry) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// segment is one object's compressed bytes as they are made: in memory,
// then, past spillAt, in a temporary file of their own.
type segment struct {
	w    *Writer
	name string
	enc  *zstd.Encoder
	raw  int64 // bytes of content
	n    int64 // compressed bytes
	crc  hash.Hash32
	mem  bytes.Buffer
	file *os.File
	err  error
}

func (w *Writer) newSegment(name string) *segment {
	s := &segment{w: w, name: name, crc: crc32.New(castagnoli)}
	s.enc = getEncoder(segmentSink{s})
	return s
}

// Write takes content; it is compressed into the segment.
func (s *segment) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.enc.Write(p)
	s.raw += int64(n)
	if err != nil {
		s.err = err
	}
	return n, err
}

// segmentSink receives the encoder's output.
type segmentSink struct{ s *segment }

func (k segmentSink) Write(p []byte) (int, error) {
	s := k.s
	s.crc.Write(p)
	s.n += int64(len(p))
	if s.file == nil && s.mem.Len()+len(p) <= spillAt {
		return s.mem.Write(p)
	}
	if s.file == nil {
		f, err := s.w.spill()
		if err != nil {
			return 0, err
		}
		if _, err := f.Write(s.mem.Bytes()); err != nil {
			return 0, err
		}
		s.mem = bytes.Buffer{}
		s.file = f
	}
	return s.file.Write(p)
}

// spill makes a temporary file for a large object, locked and removed when
// the writer ends.
func (w *Writer) spill() (*os.File, error) {
	f, err := os.CreateTemp(filepath.Join(w.c.dir, tmpDir), "obj-*.tmp")
	if err != nil {
		return nil, err
	}
	if _, err := tryLock(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	w.mu.Lock()
	closed := w.closed
	if !closed {
		w.spills = append(w.spills, f)
	}
	w.mu.Unlock()
	if closed {
		f.Close()
		os.Remove(f.Name())
		return nil, errors.New("cache: writer already committed or aborted")
	}
	return f, nil
}

// finish ends the frame.
func (s *segment) finish() error {
	if s.enc == nil {
		return s.err
	}
	if s.err == nil {
		s.err = s.enc.Close()
	}
	putEncoder(s.enc)
	s.enc = nil
	return s.err
}

// discard drops the segment's bytes.
func (s *segment) discard() {
	if s.enc != nil {
		putEncoder(s.enc)
		s.enc = nil
	}
	s.mem = bytes.Buffer{}
	if s.file != nil {
		s.file.Truncate(0)
		s.file = nil
	}
}

// writeTo copies the segment's compressed bytes to dst.
func (s *segment) writeTo(dst io.Writer) (int64, error) {
	if s.file == nil {
		n, err := dst.Write(s.mem.Bytes())
		return int64(n), err
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	n, err := io.Copy(dst, s.file)
	if err == nil && n != s.n {
		err = fmt.Errorf("spilled %d bytes of %d", n, s.n)
	}
	return n, err
}

// tee passes an object through and stores it once it is read to its end.
type tee struct {
	rc   io.ReadCloser
	w    *Writer
	name string
	seg  *segment
}

func (t *tee) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	if t.seg != nil && n > 0 {
		if _, werr := t.seg.Write(p[:n]); werr != nil {
			t.seg.discard()
			t.seg = nil
		}
	}
	if err == io.EOF && t.seg != nil {
		if t.seg.finish() == nil {
			_ = t.w.add(t.seg)
		} else {
			t.seg.discard()
		}
		t.seg = nil
	} else if err != nil && t.seg != nil {
		t.seg.discard()
		t.seg = nil
	}
	return n, err
}

func (t *tee) Close() error {
	if t.seg != nil {
		t.seg.discard()
		t.seg = nil
	}
	return t.rc.Close()
}
