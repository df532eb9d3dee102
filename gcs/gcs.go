package gcs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

	"github.com/openshift-eng/prowcrawl"
)

// Source is a prowcrawl.Source over a Google Cloud Storage bucket. It honours
// STORAGE_EMULATOR_HOST, so any GCS-API server can stand in for GCS.
type Source struct {
	client   *storage.Client
	bkt      *storage.BucketHandle
	name     string
	prefix   string // "" or "some/prefix/"
	pageSize int
	timeout  time.Duration
	auth     bool // requests carry credentials
	// Bounds of one whole listing (Options.MaxListPages, ListTimeout).
	maxPages    int
	listTimeout time.Duration
}

var _ prowcrawl.Source = (*Source)(nil)

// New opens gs://NAME[/PREFIX].
func New(ctx context.Context, bucketURL string, opts Options) (*Source, error) {
	name, prefix, err := prowcrawl.ParseBucketURL(bucketURL)
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
	switch {
	case opts.HTTPClient != nil:
		copts = append(copts, option.WithHTTPClient(opts.HTTPClient))
	case !opts.Auth:
		// Anonymous reads need no credentials in the transport, so it can be
		// one that keeps a connection per worker: Go's default keeps two
		// idle connections a host, and a crawl of 32 workers over HTTP/1.1
		// (an emulator, a proxy) would open a connection per request.
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConns, t.MaxIdleConnsPerHost = 1024, 1024
		copts = append(copts, option.WithHTTPClient(&http.Client{Transport: t}))
	}
	client, err := storage.NewClient(ctx, copts...)
	if err != nil {
		return nil, fmt.Errorf("gcs client for %s: %w", bucketURL, err)
	}
	// Handles copy the client's retry settings when made: set them first.
	setRetry(client, opts)
	g := NewFromClient(client, name, prefix)
	g.pageSize = opts.PageSize
	g.auth = opts.Auth && os.Getenv("STORAGE_EMULATOR_HOST") == ""
	if opts.RequestTimeout > 0 {
		g.timeout = opts.RequestTimeout
	}
	if opts.MaxListPages > 0 {
		g.maxPages = opts.MaxListPages
	}
	if opts.ListTimeout > 0 {
		g.listTimeout = opts.ListTimeout
	}
	return g, nil
}

// NewFromClient wraps an existing client, as tests do with the client of
// an in-process fake-gcs-server. The client's retry settings are left as
// they are; requests time out after DefaultRequestTimeout.
func NewFromClient(client *storage.Client, bucket, prefix string) *Source {
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return &Source{client: client, bkt: client.Bucket(bucket), name: bucket, prefix: prefix, timeout: DefaultRequestTimeout,
		maxPages: DefaultMaxListPages, listTimeout: DefaultListTimeout}
}

// Bucket returns the bucket name.
func (g *Source) Bucket() string { return g.name }

// Close closes the client.
func (g *Source) Close() error { return g.client.Close() }

// List lists objects page by page, asking only for names, sizes and
// encodings. A page that does not arrive within the request timeout, its
// retries included, fails the listing.
func (g *Source) List(ctx context.Context, q prowcrawl.Query) ([]prowcrawl.Entry, error) {
	sq := &storage.Query{Prefix: g.prefix + q.Prefix, Delimiter: q.Delimiter}
	if q.StartOffset != "" {
		sq.StartOffset = g.prefix + q.StartOffset
	}
	if err := sq.SetAttrSelection([]string{"Name", "Size", "ContentEncoding"}); err != nil {
		return nil, fmt.Errorf("list %s: %w", q.Prefix, err)
	}
	where := fmt.Sprintf("gs://%s/%s%s", g.name, g.prefix, q.Prefix)
	ctx, cancel := context.WithTimeoutCause(ctx, g.listTimeout,
		fmt.Errorf("list %s: %w: not done in %s", where, ErrListingTooLong, g.listTimeout))
	defer cancel()
	ctx, wd := newWatchdog(ctx, g.timeout)
	defer wd.stop()
	it := g.bkt.Objects(ctx, sq)
	if g.pageSize > 0 {
		it.PageInfo().MaxSize = g.pageSize
	}
	var out []prowcrawl.Entry
	// The token of the next page changes once a page is fetched: a token
	// seen before means the pages go round.
	tokens := map[string]bool{}
	last, pages := "", 0
	for {
		wd.kick()
		a, err := it.Next()
		wd.pause()
		if tok := it.PageInfo().Token; tok != last {
			last = tok
			pages++
			switch {
			case tok != "" && tokens[tok]:
				return nil, fmt.Errorf("list %s: %w after %d pages", where, ErrListingLoop, pages)
			case pages > g.maxPages:
				return nil, fmt.Errorf("list %s: %w: more than %d pages", where, ErrListingTooLong, g.maxPages)
			}
			tokens[tok] = true
		}
		if err == nil && ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		if errors.Is(err, iterator.Done) {
			// Each page holds objects, then prefixes: merge them into one order.
			sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
			return out, nil
		}
		if err != nil {
			if c := context.Cause(ctx); errors.Is(c, ErrListingTooLong) {
				return nil, c
			}
			return nil, fmt.Errorf("list %s: %w", where, concise(g.denied(wd.explain(err))))
		}
		if a.Prefix != "" {
			out = append(out, prowcrawl.Entry{Name: strings.TrimPrefix(a.Prefix, g.prefix), Prefix: true})
			continue
		}
		out = append(out, prowcrawl.Entry{Name: strings.TrimPrefix(a.Name, g.prefix), Size: a.Size, Encoding: a.ContentEncoding})
	}
}

// Open opens an object. Objects stored with Content-Encoding gzip (as Prow
// uploads logs) arrive decompressed, so their size as read is not the
// listed one. Asking for their stored bytes (ReadCompressed) would send a
// tenth of the bytes, but the client cannot resume such a download: after
// a cut it skips the bytes already read once more, and the object fails
// its CRC. Opening fails when no
// answer arrives within the request timeout, retries included, and the
// returned reader fails when no byte arrives for that long. A body cut
// short is resumed by the client where it broke off; one that still ends
// early is an error, never a short object.
func (g *Source) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	ctx, wd := newWatchdog(ctx, g.timeout)
	wd.kick()
	r, err := g.bkt.Object(g.prefix + name).NewReader(ctx)
	wd.pause()
	err = concise(g.denied(wd.explain(err)))
	if err != nil {
		wd.stop()
		if errors.Is(err, storage.ErrObjectNotExist) {
			err = prowcrawl.ErrNotExist
		}
		return nil, fmt.Errorf("read gs://%s/%s%s: %w", g.name, g.prefix, name, err)
	}
	return &gcsReader{r: r, wd: wd}, nil
}

// gcsReader guards a download against stalls and short bodies.
type gcsReader struct {
	r  *storage.Reader
	wd *watchdog
}

func (g *gcsReader) Read(p []byte) (int, error) {
	g.wd.kick()
	n, err := g.r.Read(p)
	g.wd.pause()
	if err == io.EOF {
		// Remain is -1 when unknown: gzip then detects a cut itself.
		if rem := g.r.Remain(); rem > 0 {
			return n, fmt.Errorf("body ended %d bytes early: %w", rem, io.ErrUnexpectedEOF)
		}
		return n, io.EOF
	}
	return n, g.wd.explain(err)
}

func (g *gcsReader) Close() error {
	err := g.r.Close()
	g.wd.stop()
	if errors.Is(err, context.Canceled) {
		// Our own cancellation of a stalled read, already reported by Read.
		return nil
	}
	return err
}
