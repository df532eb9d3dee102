package cache

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultMaxBytes is the size a cache is kept under when no other is
// given: enough for about a thousand upgrade runs' logs, compressed, on a
// laptop.
const DefaultMaxBytes int64 = 10 << 30

var (
	// ErrNotCached is returned for a run, or an object of a run, that the
	// cache does not hold.
	ErrNotCached = errors.New("not in the cache")
	// ErrDamaged is returned (wrapped, with what is wrong) for a run file
	// or an object that fails its checks. It matches ErrNotCached too: a
	// damaged entry is never trusted, only read again from the bucket.
	ErrDamaged = fmt.Errorf("damaged cache entry (%w)", ErrNotCached)
)

// Key names a run: its bucket and its directory in the bucket, as stored
// in runs.bucket and runs.path ("logs/JOB/BUILD").
type Key struct {
	Bucket string
	Path   string
}

func (k Key) String() string { return "gs://" + k.Bucket + "/" + k.Path }

// Cache is a directory of run files. Its methods are safe for concurrent
// use, and other processes may use the same directory at the same time.
type Cache struct {
	dir string
	max int64
	now func() time.Time

	mu   sync.Mutex
	size int64 // bytes of run files, as last walked plus written since; -1 unknown
}

// Open opens the cache in dir, creating it when missing. maxBytes bounds
// its size, and is stored with it: 0 keeps the bound stored, or
// DefaultMaxBytes for a cache that has none. When a write takes it past
// its bound, the oldest runs are evicted.
func Open(dir string, maxBytes int64) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("open cache: no directory given")
	}
	if maxBytes < 0 {
		return nil, fmt.Errorf("open cache %s: negative size %d", dir, maxBytes)
	}
	if err := claim(dir); err != nil {
		return nil, err
	}
	for _, d := range []string{filepath.Join(dir, runsDir), filepath.Join(dir, tmpDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("open cache: %w", err)
		}
	}
	max, err := bound(dir, maxBytes)
	if err != nil {
		return nil, err
	}
	return &Cache{dir: dir, max: max, now: time.Now, size: -1}, nil
}

// boundFile holds the size a cache is kept under, as the last Open that
// named one set it, so that every reader (status) and every later crawl
// that names none keeps the same bound.
const boundFile = "bound"

// bound is the cache's bound: maxBytes, stored, when it is set; else the
// stored one; else DefaultMaxBytes.
func bound(dir string, maxBytes int64) (int64, error) {
	p := filepath.Join(dir, boundFile)
	if maxBytes > 0 {
		if b, err := os.ReadFile(p); err == nil && strings.TrimSpace(string(b)) == strconv.FormatInt(maxBytes, 10) {
			return maxBytes, nil
		}
		// Written whole or not at all: a reader never sees half a number.
		tmp := p + ".new"
		if err := os.WriteFile(tmp, []byte(strconv.FormatInt(maxBytes, 10)+"\n"), 0o644); err != nil {
			return 0, fmt.Errorf("open cache: %w", err)
		}
		if err := os.Rename(tmp, p); err != nil {
			return 0, fmt.Errorf("open cache: %w", err)
		}
		return maxBytes, nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return DefaultMaxBytes, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n <= 0 {
		return DefaultMaxBytes, nil // damaged: the default, until a crawl sets one
	}
	return n, nil
}

// tagFile marks a directory as a cache (the Cache Directory Tagging
// Specification, which backup tools honour): Open makes a cache only of a
// new or empty directory, or of one it has tagged, so that eviction never
// removes what is not the cache's.
const (
	tagFile      = "CACHEDIR.TAG"
	tagSignature = "Signature: 8a477f597d28d172789f06886806bc55"
	tagText      = tagSignature + "\n# This directory is a prowcrawl artifact cache: prowcrawl evicts what is in it.\n"
)

// ErrNotCache is returned by Open for a directory that holds files that are
// not a cache's.
var ErrNotCache = errors.New("not a prowcrawl cache")

// claim makes dir a cache directory, or refuses it: a new or empty
// directory is tagged; a tagged one, or one that holds only a cache's
// runs/ and its tmp/ of the cache's own temporary files (a cache made
// before the tag), is the cache's; any other is refused with the first
// few names it holds.
func claim(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("open cache: %w", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, tagFile)); err == nil {
		if strings.HasPrefix(string(b), tagSignature) {
			return nil
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("open cache: %w", err)
	}
	var foreign []string
	runs := false
	for _, e := range ents {
		switch {
		case e.Name() == runsDir && e.IsDir():
			runs = true
			continue
		case e.Name() == tmpDir && e.IsDir():
			tmp, err := os.ReadDir(filepath.Join(dir, tmpDir))
			if err != nil {
				return fmt.Errorf("open cache: %w", err)
			}
			for _, t := range tmp {
				if !ownTemp(t) {
					foreign = append(foreign, strconv.Quote(tmpDir+"/"+t.Name()))
				}
			}
			continue
		}
		foreign = append(foreign, strconv.Quote(e.Name()))
	}
	if !runs && len(ents) > 0 && len(foreign) == 0 {
		foreign = append(foreign, strconv.Quote(tmpDir)+" without "+strconv.Quote(runsDir))
	}
	if len(foreign) > 0 {
		more := ""
		if len(foreign) > 3 {
			more, foreign = fmt.Sprintf(" and %d more", len(foreign)-3), foreign[:3]
		}
		return fmt.Errorf("open cache %s: %w: it holds %s%s, and a cache evicts what it holds; name a new or empty directory", dir, ErrNotCache, strings.Join(foreign, ", "), more)
	}
	// The tag is advisory: a reader of a cache in a read-only directory
	// (made before the tag) reads it untagged.
	_ = os.WriteFile(filepath.Join(dir, tagFile), []byte(tagText), 0o644)
	return nil
}

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// MaxBytes is the size the cache is kept under.
func (c *Cache) MaxBytes() int64 { return c.max }

const (
	runsDir = "runs"
	tmpDir  = "tmp"
	runExt  = ".run"
)

// file is where the run named by k is stored.
func (c *Cache) file(k Key) (string, error) {
	if err := checkKey(k); err != nil {
		return "", err
	}
	return filepath.Join(c.dir, runsDir, k.Bucket, filepath.FromSlash(k.Path)+runExt), nil
}

// checkKey refuses names that would reach outside the cache or collide
// with its own files.
func checkKey(k Key) error {
	if !goodPart(k.Bucket) {
		return fmt.Errorf("cache: bad bucket name %q", k.Bucket)
	}
	parts := strings.Split(k.Path, "/")
	for _, p := range parts {
		if !goodPart(p) {
			return fmt.Errorf("cache: bad run path %q", k.Path)
		}
	}
	if strings.HasSuffix(k.Path, runExt) {
		return fmt.Errorf("cache: bad run path %q", k.Path)
	}
	return nil
}

func goodPart(p string) bool {
	if p == "" || p == "." || p == ".." || len(p) > 255 {
		return false
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f || r == '/' || r == '\\' || r == ':' {
			return false
		}
	}
	return true
}

// keyOf is the inverse of file: the key of a run file, relative to the
// runs directory.
func keyOf(rel string) (Key, bool) {
	rel = filepath.ToSlash(rel)
	if !strings.HasSuffix(rel, runExt) {
		return Key{}, false
	}
	bucket, p, ok := strings.Cut(strings.TrimSuffix(rel, runExt), "/")
	k := Key{Bucket: bucket, Path: p}
	if !ok || checkKey(k) != nil {
		return Key{}, false
	}
	return k, true
}

// Has says whether the cache holds a run file for k, without checking it.
func (c *Cache) Has(k Key) bool {
	name, err := c.file(k)
	if err != nil {
		return false
	}
	st, err := os.Stat(name)
	return err == nil && st.Mode().IsRegular()
}

// Remove removes the run named by k; a run not held is no error.
func (c *Cache) Remove(k Key) error {
	name, err := c.file(k)
	if err != nil {
		return err
	}
	st, err := os.Stat(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cache: remove %s: %w", k, err)
	}
	if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("cache: remove %s: %w", k, err)
	}
	c.grow(-st.Size())
	return nil
}

// grow adds n bytes to the known size, if it is known.
func (c *Cache) grow(n int64) {
	c.mu.Lock()
	if c.size >= 0 {
		c.size = max(c.size+n, 0)
	}
	c.mu.Unlock()
}
