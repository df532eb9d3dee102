package prowcrawl

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// Source is a bucket of Prow job artifacts: GCS or a directory mirroring one.
// Object names are relative to the source's root and use forward slashes.
type Source interface {
	// Bucket names the bucket in the database and in Prow links.
	Bucket() string
	// List returns the entries under q.Prefix in lexicographic order.
	List(ctx context.Context, q Query) ([]Entry, error)
	// Open opens one object for reading. A missing object gives an error
	// that matches ErrNotExist.
	Open(ctx context.Context, name string) (io.ReadCloser, error)
}

// Query selects entries of a Source, as a GCS object listing does.
type Query struct {
	// Prefix is the name prefix, usually a "directory" ending in "/".
	Prefix string
	// Delimiter "/" lists one level: deeper names collapse into prefixes.
	// Empty lists every object under Prefix.
	Delimiter string
	// StartOffset skips names that sort before it.
	StartOffset string
}

// Entry is one listed object, or a common prefix when Prefix is set.
type Entry struct {
	Name   string
	Prefix bool
	// Size is the object's size in bytes as stored; -1 when unknown.
	Size int64
	// Encoding is the object's Content-Encoding ("gzip" for logs Prow
	// uploads compressed). Sources hand out the stored bytes all the same.
	Encoding string
	// Problem, when set, says why the entry cannot be read (a mirror's
	// symbolic link to outside it): it is never opened, and the run it
	// belongs to records the problem.
	Problem string
}

// ErrNotExist is returned for objects that do not exist.
var ErrNotExist = fs.ErrNotExist

// ParseBucketURL splits gs://NAME[/PREFIX] into the bucket's name and the
// prefix its objects are under: "" or a name ending in a slash.
func ParseBucketURL(u string) (bucket, prefix string, err error) {
	rest, ok := strings.CutPrefix(u, "gs://")
	if !ok {
		return "", "", fmt.Errorf("bucket %q: want gs://NAME[/PREFIX]", u)
	}
	bucket, prefix, _ = strings.Cut(rest, "/")
	if bucket == "" {
		return "", "", fmt.Errorf("bucket %q: no bucket name", u)
	}
	prefix = strings.Trim(prefix, "/")
	if prefix != "" {
		prefix += "/"
	}
	return bucket, prefix, nil
}
