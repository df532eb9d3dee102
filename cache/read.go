package cache

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"iter"
	"os"
	"time"

	"github.com/klauspost/compress/zstd"
)

// File is one object of a cached run.
type File struct {
	// Name is relative to the run's directory: "build-log.txt",
	// "artifacts/e2e/gather-extra/artifacts/clusterversion.json".
	Name string
	// Size is the object's size in the bucket as listed; -1 when unknown.
	Size int64
	// Encoding is the object's Content-Encoding in the bucket ("gzip").
	Encoding string
	// Cached says whether the cache holds the object's content; a listed
	// object that the crawl did not read is not cached.
	Cached bool
	// Stored is the length of the content held, when Cached.
	Stored int64
}

// Object is a cached file with a reader of its content.
type Object struct {
	File
	Content io.Reader
}

// maxIndex bounds a run's index: a listing of a million objects.
const maxIndex = 256 << 20

// maxIndexRatio bounds how many times its compressed size an index may
// expand to (real ones: 3 to 10), beyond its first MiB.
const maxIndexRatio = 64

// Run is a cached run, open for reading. It reads the file it opened even
// if the run is replaced or evicted meanwhile. Its methods may be called
// from several goroutines.
type Run struct {
	c     *Cache
	key   Key
	f     *os.File
	ix    index
	size  int64
	names map[string]int
	// misses are the files of Artifact that could not be read.
	misses missed
}

// errNotRegular is openRegular's error for a name that is not a regular
// file.
var errNotRegular = errors.New("not a regular file")

// Open opens the cached run named by k. A run the cache does not hold is
// ErrNotCached; one whose file fails its checks is ErrDamaged (which
// matches ErrNotCached too).
func (c *Cache) Open(k Key) (*Run, error) {
	name, err := c.file(k)
	if err != nil {
		return nil, err
	}
	// Only a regular file is opened: a FIFO in its place would block the
	// open, deaf to a signal; a link or a directory is none of the cache's.
	if fi, err := os.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w: %s is not a regular file (%s)", k, ErrDamaged, name, fi.Mode().Type())
	}
	f, err := openRegular(name)
	if errors.Is(err, errNotRegular) {
		return nil, fmt.Errorf("%s: %w: %s is not a regular file", k, ErrDamaged, name)
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", k, ErrNotCached)
	}
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	r, err := readRun(f, k)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", k, err)
	}
	r.c = c
	return r, nil
}

func readRun(f *os.File, k Key) (*Run, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if size < int64(headerSize+trailerSize) {
		return nil, fmt.Errorf("%w: %d bytes, too short", ErrDamaged, size)
	}
	head := make([]byte, headerSize)
	if _, err := f.ReadAt(head, 0); err != nil {
		return nil, err
	}
	if string(head) != magic {
		return nil, fmt.Errorf("%w: not a run file", ErrDamaged)
	}
	tb := make([]byte, trailerSize)
	if _, err := f.ReadAt(tb, size-trailerSize); err != nil {
		return nil, err
	}
	t, err := decodeTrailer(tb, size)
	if err != nil {
		return nil, err
	}
	if t.n > maxIndex {
		return nil, fmt.Errorf("%w: index of %d bytes", ErrDamaged, t.n)
	}
	zix := make([]byte, t.n)
	if _, err := f.ReadAt(zix, int64(t.off)); err != nil {
		return nil, err
	}
	if crc32.Checksum(zix, castagnoli) != t.crc {
		return nil, fmt.Errorf("%w: the index fails its checksum", ErrDamaged)
	}
	// An index's JSON compresses a few times over; a thousandfold one is a
	// bomb, refused before it is expanded.
	js, err := decompress(zix, min(maxIndex, maxIndexRatio*len(zix)+1<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: index: %v", ErrDamaged, err)
	}
	r := &Run{key: k, f: f, size: size}
	if err := json.Unmarshal(js, &r.ix); err != nil {
		return nil, fmt.Errorf("%w: index: %v", ErrDamaged, err)
	}
	if r.ix.Bucket != k.Bucket || r.ix.Path != k.Path {
		return nil, fmt.Errorf("%w: the file holds gs://%s/%s", ErrDamaged, r.ix.Bucket, r.ix.Path)
	}
	if err := r.ix.check(int64(t.off)); err != nil {
		return nil, err
	}
	r.names = make(map[string]int, len(r.ix.Files))
	for i, e := range r.ix.Files {
		r.names[e.Name] = i
	}
	return r, nil
}

// Close closes the run's file.
func (r *Run) Close() error { return r.f.Close() }

// Key is the run's name.
func (r *Run) Key() Key { return r.key }

// Started is the run's start as the writer recorded it; zero when unknown.
func (r *Run) Started() time.Time { return r.ix.Started }

// Stored is when the run file was written.
func (r *Run) Stored() time.Time { return r.ix.Stored }

// Listed says whether Files is the run's whole listing in the bucket, so
// that a file missing from it is missing from the run, not only from the
// cache.
func (r *Run) Listed() bool { return r.ix.Listed }

// Size is the run file's size on disk.
func (r *Run) Size() int64 { return r.size }

// Files lists the run's objects in name order (a bucket listing's order):
// the whole listing when Listed, else the cached objects.
func (r *Run) Files() []File {
	out := make([]File, len(r.ix.Files))
	for i, e := range r.ix.Files {
		out[i] = e.file()
	}
	return out
}

func (e fileEntry) file() File {
	return File{Name: e.Name, Size: e.Size, Encoding: e.Encoding, Cached: e.Cached, Stored: e.Raw}
}

// Stat describes one object of the run.
func (r *Run) Stat(name string) (File, bool) {
	i, ok := r.names[name]
	if !ok {
		return File{}, false
	}
	return r.ix.Files[i].file(), true
}

// Open opens the content of one cached object. Its stored bytes are
// checked before any is handed out, and its length and zstd checksum as
// it is read: a damaged object gives ErrDamaged, from Open or at the end
// of the reads. An object the run does not hold is ErrNotCached.
func (r *Run) Open(name string) (io.ReadCloser, error) {
	i, ok := r.names[name]
	if !ok || !r.ix.Files[i].Cached {
		return nil, fmt.Errorf("%s: %s: %w", r.key, name, ErrNotCached)
	}
	e := r.ix.Files[i]
	if err := r.verify(e); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", r.key, name, err)
	}
	d, err := getDecoder(io.NewSectionReader(r.f, e.Off, e.Len))
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w: %v", r.key, name, ErrDamaged, err)
	}
	return &content{d: d, want: e.Raw, name: r.key.String() + ": " + name}, nil
}

// verify checks an object's stored bytes against the index's checksum.
func (r *Run) verify(e fileEntry) error {
	h := crc32.New(castagnoli)
	n, err := io.Copy(h, io.NewSectionReader(r.f, e.Off, e.Len))
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if n != e.Len || h.Sum32() != e.CRC {
		return fmt.Errorf("%w: the stored bytes fail their checksum", ErrDamaged)
	}
	return nil
}

// Verify checks every cached object of the run: its stored bytes, and that
// they decompress to the recorded length.
func (r *Run) Verify() error {
	for _, e := range r.ix.Files {
		if !e.Cached {
			continue
		}
		rc, err := r.Open(e.Name)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, rc)
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// All yields the run's cached objects in name order, each with a reader of
// its content that is valid until the loop goes on. A damaged object is
// yielded with an error that wraps ErrDamaged, also when the damage shows
// only at the end of its content.
func (r *Run) All() iter.Seq2[Object, error] {
	return func(yield func(Object, error) bool) {
		for _, e := range r.ix.Files {
			if !e.Cached {
				continue
			}
			rc, err := r.Open(e.Name)
			if err != nil {
				if !yield(Object{File: e.file()}, err) {
					return
				}
				continue
			}
			cr := &checked{rc: rc}
			more := yield(Object{File: e.file(), Content: cr}, nil)
			if more && cr.err == nil && !cr.eof {
				// The caller stopped reading early: whether the rest is
				// sound is still worth knowing before going on.
				_, cr.err = io.Copy(io.Discard, cr)
			}
			rc.Close()
			if !more {
				return
			}
			if cr.err != nil && !errors.Is(cr.err, io.EOF) {
				if !yield(Object{File: e.file()}, cr.err) {
					return
				}
			}
		}
	}
}

// checked remembers how the reads of a content ended.
type checked struct {
	rc  io.Reader
	err error
	eof bool
}

func (c *checked) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.rc.Read(p)
	if err == io.EOF {
		c.eof = true
	} else if err != nil {
		c.err = err
	}
	return n, err
}

// content is a cached object's decompressed bytes, held to their recorded
// length.
type content struct {
	d    *zstd.Decoder
	want int64
	got  int64
	name string
	err  error
}

func (c *content) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.d == nil {
		return 0, errors.New("read of a closed cache object")
	}
	n, err := c.d.Read(p)
	c.got += int64(n)
	switch {
	case err == io.EOF && c.got != c.want:
		c.err = fmt.Errorf("%s: %w: %d bytes of content, want %d", c.name, ErrDamaged, c.got, c.want)
		return n, c.err
	case err == nil && c.got > c.want:
		c.err = fmt.Errorf("%s: %w: more content than the %d bytes recorded", c.name, ErrDamaged, c.want)
		return n, c.err
	case err != nil && err != io.EOF:
		c.err = fmt.Errorf("%s: %w: %v", c.name, ErrDamaged, err)
		return n, c.err
	}
	return n, err
}

func (c *content) Close() error {
	if c.d != nil {
		putDecoder(c.d)
		c.d = nil
	}
	return nil
}
