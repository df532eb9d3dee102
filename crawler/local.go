package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Dir is a Source over a local directory that mirrors a bucket's layout, as
// `gsutil -m rsync -r gs://BUCKET/logs/JOB DIR/logs/JOB` leaves it. Reads go
// through an os.Root, so no name can reach outside the directory.
type Dir struct {
	root *os.Root
	dir  string
	name string
}

var _ Source = (*Dir)(nil)

// NewMirror opens dir as a mirror of the bucket gs://NAME: its runs are
// recorded in that bucket, with Prow links to it, so that they are the same
// runs as those a crawl of the bucket itself finds.
func NewMirror(dir, bucketURL string) (*Dir, error) {
	d, err := NewDir(dir)
	if err != nil {
		return nil, err
	}
	if err := d.MirrorOf(bucketURL); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// MirrorOf names the bucket, gs://NAME, that the directory mirrors.
func (d *Dir) MirrorOf(bucketURL string) error {
	name, prefix, err := splitGSURL(bucketURL)
	if err != nil {
		return err
	}
	if prefix != "" {
		return fmt.Errorf("mirror of %q: want a whole bucket, gs://NAME, whose logs/ and pr-logs/ the directory holds", bucketURL)
	}
	d.name = name
	return nil
}

// NewDir opens dir as a source. The bucket name recorded for its runs is the
// directory's base name; NewMirror names the bucket it mirrors.
func NewDir(dir string) (*Dir, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("bucket directory %s: %w", dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("bucket directory %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("bucket directory %s: not a directory", dir)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("bucket directory %s: %w", dir, err)
	}
	return &Dir{root: root, dir: abs, name: filepath.Base(abs)}, nil
}

// Bucket returns the name of the bucket the directory mirrors, or its
// base name.
func (d *Dir) Bucket() string { return d.name }

// Close releases the directory handle.
func (d *Dir) Close() error { return d.root.Close() }

// List lists the directory like a GCS listing: names in lexicographic order,
// subdirectories as prefixes when q.Delimiter is "/".
func (d *Dir) List(ctx context.Context, q Query) ([]Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if q.Delimiter != "" && q.Delimiter != "/" {
		return nil, fmt.Errorf("list %s: delimiter %q not supported", q.Prefix, q.Delimiter)
	}
	if !validName(strings.TrimSuffix(q.Prefix, "/")) && q.Prefix != "" {
		return nil, fmt.Errorf("list %q: invalid name", q.Prefix)
	}
	// The directory that holds every name with this prefix.
	base := q.Prefix
	if i := strings.LastIndex(base, "/"); i >= 0 {
		base = base[:i]
	} else {
		base = ""
	}
	fsys := d.root.FS()
	dir := base
	if dir == "" {
		dir = "."
	}
	var out []Entry
	add := func(e Entry) {
		if strings.HasPrefix(e.Name, q.Prefix) && e.Name >= q.StartOffset {
			out = append(out, e)
		}
	}
	if q.Delimiter == "/" {
		ents, err := fs.ReadDir(fsys, dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", q.Prefix, err)
		}
		for _, e := range ents {
			name := path.Join(base, e.Name())
			switch {
			case e.IsDir():
				add(Entry{Name: name + "/", Prefix: true})
			case e.Type().IsRegular():
				info, err := e.Info()
				if err != nil {
					return nil, fmt.Errorf("list %s: %w", name, err)
				}
				add(Entry{Name: name, Size: info.Size()})
			}
		}
	} else {
		err := fs.WalkDir(fsys, dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && p == dir {
					return fs.SkipAll
				}
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if !e.Type().IsRegular() {
				return nil
			}
			info, err := e.Info()
			if err != nil {
				return err
			}
			add(Entry{Name: p, Size: info.Size()})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", q.Prefix, err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Open opens a file below the directory. Names that are absolute, contain
// "..", backslashes or control characters are refused.
func (d *Dir) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !validName(name) {
		return nil, fmt.Errorf("open %q: invalid object name", name)
	}
	f, err := d.root.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file")
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	return f, nil
}

// validName reports whether an object name is safe to map onto a file path.
func validName(name string) bool {
	if name == "" || !fs.ValidPath(name) || strings.ContainsRune(name, '\\') {
		return false
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}
