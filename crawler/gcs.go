package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
)

// GCSOptions configures the GCS source.
type GCSOptions struct {
	// Auth uses Application Default Credentials instead of anonymous reads.
	// The CI buckets are public, so the default is anonymous.
	Auth bool
	// JSONReads downloads objects through the JSON API instead of the
	// default XML API.
	JSONReads bool
	// PageSize bounds each listing page; 0 means the server's maximum (1000).
	PageSize int
	// HTTPClient, when set, carries every request (tests use it to count or
	// disturb requests).
	HTTPClient *http.Client
}

// GCS is a Source over a Google Cloud Storage bucket. It honours
// STORAGE_EMULATOR_HOST, so any GCS-API server can stand in for GCS.
type GCS struct {
	client   *storage.Client
	bkt      *storage.BucketHandle
	name     string
	prefix   string // "" or "some/prefix/"
	pageSize int
}

var _ Source = (*GCS)(nil)

// NewGCS opens gs://NAME[/PREFIX].
func NewGCS(ctx context.Context, bucketURL string, opts GCSOptions) (*GCS, error) {
	name, prefix, err := splitGSURL(bucketURL)
	if err != nil {
		return nil, err
	}
	var copts []option.ClientOption
	// With STORAGE_EMULATOR_HOST the client turns authentication off itself.
	if !opts.Auth && os.Getenv("STORAGE_EMULATOR_HOST") == "" {
		copts = append(copts, option.WithoutAuthentication())
	}
	if opts.JSONReads {
		copts = append(copts, storage.WithJSONReads())
	}
	if opts.HTTPClient != nil {
		copts = append(copts, option.WithHTTPClient(opts.HTTPClient))
	}
	client, err := storage.NewClient(ctx, copts...)
	if err != nil {
		return nil, fmt.Errorf("gcs client for %s: %w", bucketURL, err)
	}
	g := NewGCSFromClient(client, name, prefix)
	g.pageSize = opts.PageSize
	return g, nil
}

// NewGCSFromClient wraps an existing client, as tests do with the client of
// an in-process fake-gcs-server.
func NewGCSFromClient(client *storage.Client, bucket, prefix string) *GCS {
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return &GCS{client: client, bkt: client.Bucket(bucket), name: bucket, prefix: prefix}
}

func splitGSURL(u string) (bucket, prefix string, err error) {
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

// Bucket returns the bucket name.
func (g *GCS) Bucket() string { return g.name }

// Close closes the client.
func (g *GCS) Close() error { return g.client.Close() }

// List lists objects page by page, asking only for names and sizes.
func (g *GCS) List(ctx context.Context, q Query) ([]Entry, error) {
	sq := &storage.Query{Prefix: g.prefix + q.Prefix, Delimiter: q.Delimiter}
	if q.StartOffset != "" {
		sq.StartOffset = g.prefix + q.StartOffset
	}
	if err := sq.SetAttrSelection([]string{"Name", "Size"}); err != nil {
		return nil, fmt.Errorf("list %s: %w", q.Prefix, err)
	}
	it := g.bkt.Objects(ctx, sq)
	if g.pageSize > 0 {
		it.PageInfo().MaxSize = g.pageSize
	}
	var out []Entry
	for {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			// Each page holds objects, then prefixes: merge them into one order.
			sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("list gs://%s/%s%s: %w", g.name, g.prefix, q.Prefix, err)
		}
		if a.Prefix != "" {
			out = append(out, Entry{Name: strings.TrimPrefix(a.Prefix, g.prefix), Prefix: true})
			continue
		}
		out = append(out, Entry{Name: strings.TrimPrefix(a.Name, g.prefix), Size: a.Size})
	}
}

// Open opens an object. Objects stored with Content-Encoding gzip arrive
// decompressed (the client asks for transcoding).
func (g *GCS) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	r, err := g.bkt.Object(g.prefix + name).NewReader(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return nil, fmt.Errorf("read gs://%s/%s%s: %w", g.name, g.prefix, name, ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("read gs://%s/%s%s: %w", g.name, g.prefix, name, err)
	}
	return r, nil
}
