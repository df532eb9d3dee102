package crawler

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/gcs"
	"github.com/openshift-eng/prowcrawl/mirror"
)

// Open opens a source from a bucket URL: gs://NAME[/PREFIX], file://DIR or a
// plain directory path.
func Open(ctx context.Context, bucketURL string, opts gcs.Options) (prowcrawl.Source, error) {
	switch {
	case bucketURL == "":
		return nil, errors.New("no bucket given")
	case strings.HasPrefix(bucketURL, "gs://"):
		return gcs.New(ctx, bucketURL, opts)
	case strings.HasPrefix(bucketURL, "file://"):
		return mirror.New(strings.TrimPrefix(bucketURL, "file://"))
	case strings.Contains(bucketURL, "://"):
		return nil, fmt.Errorf("bucket %q: unsupported scheme (want gs://, file:// or a directory)", bucketURL)
	default:
		return mirror.New(bucketURL)
	}
}
