package mirror

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/openshift-eng/prowcrawl"
)

// Dir is a prowcrawl.Source over a local directory that mirrors a
// bucket's layout, as `gsutil -m rsync -r gs://BUCKET/logs/JOB
// DIR/logs/JOB` leaves it. Reads go through an os.Root, so no name can
// reach outside the directory.
type Dir struct {
	root *os.Root
	dir  string
	name string
}

var _ prowcrawl.Source = (*Dir)(nil)

// MirrorOf names the bucket, gs://NAME, that the directory mirrors.
func (d *Dir) MirrorOf(bucketURL string) error {
	name, prefix, err := prowcrawl.ParseBucketURL(bucketURL)
	if err != nil {
		return err
	}
	if prefix != "" {
		return fmt.Errorf("mirror of %q: want a whole bucket, gs://NAME, whose logs/ and pr-logs/ the directory holds", bucketURL)
	}
	d.name = name
	return nil
}

// New opens dir as a source. The bucket name recorded for its runs is the
// directory's base name; MirrorOf names the bucket it mirrors.
func New(dir string) (*Dir, error) {
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
//
// A symbolic link whose target stays inside the directory is listed as
// what it points to, as gsutil rsync would have copied it: a file with the
// target's size, a directory whose files are listed under the link's name.
// One whose target is outside the directory (or missing, or a directory
// that holds the link: a loop) is never followed: it is listed with
// Entry.Problem saying so, and the run it belongs to records it. Listing
// through such a link (a job or build directory that is one) fails with
// the same sentence.
func (d *Dir) List(ctx context.Context, q prowcrawl.Query) ([]prowcrawl.Entry, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if q.Delimiter != "" && q.Delimiter != "/" {
		return nil, fmt.Errorf("list %s: delimiter %q not supported", q.Prefix, q.Delimiter)
	}
	if !ValidName(strings.TrimSuffix(q.Prefix, "/")) && q.Prefix != "" {
		return nil, fmt.Errorf("list %q: invalid name", q.Prefix)
	}
	// The directory that holds every name with this prefix.
	base := q.Prefix
	if i := strings.LastIndex(base, "/"); i >= 0 {
		base = base[:i]
	} else {
		base = ""
	}
	dir := base
	if dir == "" {
		dir = "."
	}
	var out []prowcrawl.Entry
	add := func(e prowcrawl.Entry) {
		if strings.HasPrefix(e.Name, q.Prefix) && e.Name >= q.StartOffset {
			out = append(out, e)
		}
	}
	top, err := d.root.Stat(dir)
	if err != nil {
		if link, lerr, ok := d.brokenLink(dir); ok {
			return nil, fmt.Errorf("list %s: %s", q.Prefix, d.linkProblem(link, lerr))
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist) || err == nil && !top.IsDir():
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("list %s: %w", q.Prefix, err)
	}
	if err := d.walk(ctx, dir, []fs.FileInfo{top}, q.Delimiter == "", add); err != nil {
		return nil, fmt.Errorf("list %s: %w", q.Prefix, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// walk lists dir (a name below the directory, or ".") into add; deep
// descends into subdirectories, else they are added as prefixes. above
// are the directories walked into to reach dir, dir last, so that a link
// back to one of them is seen as the loop it is.
func (d *Dir) walk(ctx context.Context, dir string, above []fs.FileInfo, deep bool, add func(prowcrawl.Entry)) error {
	ents, err := fs.ReadDir(d.root.FS(), dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		// Through a link inside the directory, the names are the link's:
		// os.Root follows it.
		p := path.Join(dir, e.Name())
		n := p
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the directory was read
		}
		if err != nil {
			return err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			target, err := d.root.Stat(p)
			if err != nil {
				// Outside the directory, or missing: named, never read.
				// Listed as a prefix where a prefix is asked for, so that
				// a job or build directory that is such a link is listed
				// (and fails with the reason) rather than passed over.
				if !deep {
					n += "/"
				}
				add(prowcrawl.Entry{Name: n, Size: -1, Prefix: !deep, Problem: d.linkProblem(p, err)})
				continue
			}
			info = target
		}
		switch {
		case info.IsDir() && !deep:
			add(prowcrawl.Entry{Name: n + "/", Prefix: true})
		case info.IsDir():
			if slices.ContainsFunc(above, func(a fs.FileInfo) bool { return os.SameFile(a, info) }) {
				add(prowcrawl.Entry{Name: n, Size: -1, Problem: fmt.Sprintf("%s is a symbolic link to a directory that holds it (a loop): not followed", p)})
				continue
			}
			if err := d.walk(ctx, p, append(slices.Clip(above), info), deep, add); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			add(prowcrawl.Entry{Name: n, Size: info.Size()})
		default:
			// A FIFO, a device or a socket is no object of a bucket:
			// named on the run, never opened (a FIFO would block).
			add(prowcrawl.Entry{Name: n, Size: -1, Problem: fmt.Sprintf("%s is not a regular file (%s): not read", p, specialKind(info.Mode()))})
		}
	}
	return nil
}

// brokenLink finds the first component of name that is a symbolic link
// which cannot be followed inside the directory, and why.
func (d *Dir) brokenLink(name string) (link string, err error, ok bool) {
	parts := strings.Split(name, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		st, lerr := d.root.Lstat(p)
		if lerr != nil {
			return "", nil, false
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if _, serr := d.root.Stat(p); serr != nil {
			return p, serr, true
		}
	}
	return "", nil, false
}

// linkProblem is the sentence recorded for a symbolic link that is not
// followed; err is why resolving it inside the directory failed.
func (d *Dir) linkProblem(name string, err error) string {
	target, rerr := d.root.Readlink(name)
	if rerr != nil {
		target = "?"
	}
	why := "leads outside the mirror"
	switch {
	case errors.Is(err, fs.ErrNotExist):
		why = "does not exist"
	case !strings.Contains(err.Error(), "escapes"):
		why = "cannot be followed (" + err.Error() + ")"
	}
	return fmt.Sprintf("%s is a symbolic link to %s, which %s: not read", name, target, why)
}

// Open opens a file below the directory. Names that are absolute, contain
// "..", backslashes or control characters are refused.
func (d *Dir) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !ValidName(name) {
		return nil, fmt.Errorf("open %q: invalid object name", name)
	}
	// Without blocking: a FIFO put in a file's place since the listing
	// would wait for a writer forever.
	f, err := d.root.OpenFile(name, os.O_RDONLY|nonBlock, 0)
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

// specialKind names a file mode that is not a regular file's.
func specialKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// ValidName reports whether an object name is safe to map onto a file path
// below the directory: relative, clean, without backslashes or control
// characters. Open refuses any other.
func ValidName(name string) bool {
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
