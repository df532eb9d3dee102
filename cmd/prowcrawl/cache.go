package main

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/openshift-eng/prowcrawl/cache"
)

// cacheOptions are the flags of the artifact cache, shared by crawl,
// backfill, reclassify, search and status.
type cacheOptions struct {
	Dir  string
	Size string
	fs   *pflag.FlagSet
}

// defaultCacheDir is the cache of the database at dbPath unless --cache
// says otherwise: beside it, named after it (prowcrawl-cache for
// prowcrawl.db, shard-1-cache for shard-1.db), so that two databases of one
// directory never share a cache, nor evict each other's runs.
func defaultCacheDir(dbPath string) string {
	base := filepath.Base(dbPath)
	for _, ext := range []string{".db", ".sqlite3", ".sqlite"} {
		if b, ok := strings.CutSuffix(base, ext); ok && b != "" {
			base = b
			break
		}
	}
	return filepath.Join(filepath.Dir(dbPath), base+"-cache")
}

func (c *cacheOptions) addFlags(fs *pflag.FlagSet, withSize bool) {
	c.fs = fs
	fs.StringVar(&c.Dir, "cache", c.Dir, "directory of the artifact cache (default: beside --db, named after it: prowcrawl-cache for prowcrawl.db); '' turns it off")
	if withSize {
		c.Size = "10GiB"
		fs.StringVar(&c.Size, "cache-size", c.Size, "size the cache is kept under, stored with it for later commands, the runs that started first evicted first: bytes or a size such as 500MiB, 20GB")
	}
}

// dir is the cache's directory for the database at dbPath; "" when off.
func (c *cacheOptions) dir(dbPath string) string {
	if c.fs != nil && c.fs.Changed("cache") {
		return c.Dir
	}
	return defaultCacheDir(dbPath)
}

// open opens the cache (creating it), or gives nil when it is off.
func (c *cacheOptions) open(dbPath string) (*cache.Cache, error) {
	dir := c.dir(dbPath)
	if dir == "" {
		return nil, nil
	}
	// The bound is the cache's own (stored with it) unless this command
	// sets it.
	var size int64
	if c.fs != nil && c.fs.Changed("cache-size") {
		var err error
		if size, err = parseSize(c.Size); err != nil {
			return nil, usagef("--cache-size %q: %v", c.Size, err)
		}
	}
	cc, err := cache.Open(dir, size)
	if err != nil {
		return nil, usageError{err}
	}
	return cc, nil
}

// openExisting opens a cache that a crawl made, for reading; a missing
// one is a usage error that says what to do.
func (c *cacheOptions) openExisting(dbPath string) (*cache.Cache, error) {
	dir := c.dir(dbPath)
	if dir == "" {
		return nil, usagef("this command reads the artifact cache: give --cache DIR")
	}
	if !cacheExists(dir) {
		return nil, usagef("no artifact cache at %s: a crawl fills it (--cache, on by default)", dir)
	}
	return c.open(dbPath)
}

var sizePattern = regexp.MustCompile(`(?i)^([0-9]+(?:\.[0-9]+)?)\s*(?:([kmgt])(i)?b?|b)?$`)

// parseSize reads a byte count: 1073741824, 500MiB, 20GB, 1.5GiB. "" is
// the default.
func parseSize(s string) (int64, error) {
	m := sizePattern.FindStringSubmatch(strings.TrimSpace(s))
	switch {
	case strings.TrimSpace(s) == "":
		return 0, nil
	case m == nil:
		return 0, errors.New("want a size such as 500MiB or 20GB")
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, err
	}
	mult := 1.0
	if m[2] != "" {
		exp := strings.Index("kmgt", strings.ToLower(m[2])) + 1
		base := 1000.0
		if m[3] != "" {
			base = 1024
		}
		mult = math.Pow(base, float64(exp))
	}
	b := n * mult
	switch {
	case b < 1<<20:
		return 0, errors.New("want at least 1MiB")
	case b > 1<<62:
		return 0, errors.New("too large")
	}
	return int64(b), nil
}

// cacheExists says whether dir holds an artifact cache.
func cacheExists(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "runs"))
	return err == nil && st.IsDir()
}
