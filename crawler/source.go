package crawler

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openshift-eng/prowcrawl"
)

// Open opens a source from a bucket URL: gs://NAME[/PREFIX], file://DIR or a
// plain directory path.
func Open(ctx context.Context, bucketURL string, opts GCSOptions) (prowcrawl.Source, error) {
	switch {
	case bucketURL == "":
		return nil, errors.New("no bucket given")
	case strings.HasPrefix(bucketURL, "gs://"):
		return NewGCS(ctx, bucketURL, opts)
	case strings.HasPrefix(bucketURL, "file://"):
		return NewDir(strings.TrimPrefix(bucketURL, "file://"))
	case strings.Contains(bucketURL, "://"):
		return nil, fmt.Errorf("bucket %q: unsupported scheme (want gs://, file:// or a directory)", bucketURL)
	default:
		return NewDir(bucketURL)
	}
}
