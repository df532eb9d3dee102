package cache

import (
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Entry is a run file as the directory shows it, without opening it.
type Entry struct {
	Key Key
	// Started is the run's start (the file's modification time).
	Started time.Time
	// Size is the run file's size on disk.
	Size int64
}

// Runs yields every run the cache holds, in no particular order, from a
// walk of its directory: run files are not opened, so a damaged one shows
// only when it is.
func (c *Cache) Runs() iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		root := filepath.Join(c.dir, runsDir)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil // removed while walked
				}
				return err
			}
			if d.IsDir() || !strings.HasSuffix(p, runExt) {
				return nil
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return nil
			}
			k, ok := keyOf(rel)
			if !ok {
				return nil
			}
			info, err := d.Info()
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil {
				return err
			}
			started := info.ModTime()
			if started.Nanosecond() != 0 {
				started = c.startOf(p, k, started)
			}
			if !yield(Entry{Key: k, Started: started.UTC(), Size: info.Size()}, nil) {
				return fs.SkipAll
			}
			return nil
		})
		if err != nil {
			yield(Entry{}, fmt.Errorf("cache: walk %s: %w", root, err))
		}
	}
}

// startOf is the start of the run in file p, from its index, for a file
// whose time the cache did not set (a copy of the cache that did not keep
// file times says every run started the day it was copied): the file's
// time is set to it, so that the index is read once. A file that cannot be
// read keeps its time; it is damaged, and reported when opened.
func (c *Cache) startOf(p string, k Key, mtime time.Time) time.Time {
	f, err := openRegular(p)
	if err != nil {
		return mtime
	}
	r, err := readRun(f, k)
	f.Close()
	if err != nil {
		return mtime
	}
	t := r.ix.Started
	if t.IsZero() {
		t = r.ix.Stored
	}
	t = t.Truncate(time.Second)
	_ = os.Chtimes(p, t, t)
	return t
}

// Stats is what the cache holds.
type Stats struct {
	Runs int
	// Bytes is the size on disk of the run files; Temp that of files being
	// written, or left by a writer that was killed.
	Bytes, Temp int64
	// Oldest and Newest are the starts of the first and last runs held.
	Oldest, Newest time.Time
	// MaxBytes is the size the cache is kept under.
	MaxBytes int64
}

// Stats walks the cache.
func (c *Cache) Stats() (Stats, error) {
	s := Stats{MaxBytes: c.max}
	for e, err := range c.Runs() {
		if err != nil {
			return s, err
		}
		s.Runs++
		s.Bytes += e.Size
		if s.Oldest.IsZero() || e.Started.Before(s.Oldest) {
			s.Oldest = e.Started
		}
		if e.Started.After(s.Newest) {
			s.Newest = e.Started
		}
	}
	tmp, err := os.ReadDir(filepath.Join(c.dir, tmpDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return s, fmt.Errorf("cache: %w", err)
	}
	for _, d := range tmp {
		if info, err := d.Info(); err == nil {
			s.Temp += info.Size()
		}
	}
	c.mu.Lock()
	c.size = s.Bytes
	c.mu.Unlock()
	return s, nil
}

// Evicted is what an eviction removed.
type Evicted struct {
	Runs  int
	Bytes int64
	Temp  int // temporary files of writers that are gone
}

// Evict removes the runs that started first until the cache is under its
// size (with a tenth of it to spare, so that the next writes do not evict
// again at once), and the temporary files that killed writers left.
func (c *Cache) Evict() (Evicted, error) {
	return c.evictTo(c.max - c.max/10)
}

// evictIfOver evicts when the size known in this process is past the
// bound; the first call walks the cache to learn it.
func (c *Cache) evictIfOver() (Evicted, error) {
	c.mu.Lock()
	size := c.size
	c.mu.Unlock()
	if size < 0 {
		s, err := c.Stats()
		if err != nil {
			return Evicted{}, err
		}
		size = s.Bytes
	}
	if size <= c.max {
		return Evicted{}, nil
	}
	return c.Evict()
}

func (c *Cache) evictTo(target int64) (Evicted, error) {
	var ev Evicted
	ev.Temp = c.cleanTemp()
	var all []Entry
	var total int64
	for e, err := range c.Runs() {
		if err != nil {
			return ev, err
		}
		all = append(all, e)
		total += e.Size
	}
	if total > c.max {
		// Oldest first; for runs that started at the same second, the
		// one named first.
		slices.SortFunc(all, func(a, b Entry) int {
			if d := a.Started.Compare(b.Started); d != 0 {
				return d
			}
			return strings.Compare(a.Key.String(), b.Key.String())
		})
		for _, e := range all {
			if total <= target {
				break
			}
			name, err := c.file(e.Key)
			if err != nil {
				continue
			}
			if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return ev, fmt.Errorf("cache: evict %s: %w", e.Key, err)
			}
			total -= e.Size
			ev.Runs++
			ev.Bytes += e.Size
		}
	}
	c.mu.Lock()
	c.size = total
	c.mu.Unlock()
	return ev, nil
}

// tempGrace is how old a temporary file must be before a cleaner looks at
// it: a writer locks its file just after creating it.
const tempGrace = time.Minute

// ownTemp reports whether d is a temporary file a writer of the cache
// made: a regular file named run-*.tmp or obj-*.tmp (os.CreateTemp's
// digits in place of the star).
func ownTemp(d fs.DirEntry) bool {
	name := d.Name()
	if !d.Type().IsRegular() || !strings.HasSuffix(name, ".tmp") {
		return false
	}
	mid, ok := strings.CutPrefix(strings.TrimSuffix(name, ".tmp"), "run-")
	if !ok {
		mid, ok = strings.CutPrefix(strings.TrimSuffix(name, ".tmp"), "obj-")
	}
	if !ok || mid == "" {
		return false
	}
	for _, r := range mid {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// cleanTemp removes the temporary files that no live writer holds.
func (c *Cache) cleanTemp() int {
	dir := filepath.Join(c.dir, tmpDir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, d := range ents {
		if !ownTemp(d) {
			continue // never a name the cache did not make
		}
		info, err := d.Info()
		if err != nil || c.now().Sub(info.ModTime()) < tempGrace {
			continue
		}
		p := filepath.Join(dir, d.Name())
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		ok, err := tryLock(f)
		if err == nil && ok {
			if os.Remove(p) == nil {
				n++
			}
		}
		f.Close()
	}
	return n
}
