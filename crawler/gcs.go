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
	"sync/atomic"
	"time"

	"cloud.google.com/go/storage"
	"github.com/googleapis/gax-go/v2"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

	"github.com/openshift-eng/prowcrawl"
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

	// MaxAttempts bounds the attempts of one request: the first and its
	// retries. Reads and listings are idempotent, so every request is
	// retried on 408, 429, 5xx, connection resets and bodies cut short.
	// 0 means DefaultMaxAttempts; 1 turns retries off.
	MaxAttempts int
	// InitialBackoff and MaxBackoff bound the wait before a retry: it
	// doubles from InitialBackoff up to MaxBackoff, and each wait is drawn
	// at random below its bound (full jitter), so that workers retrying at
	// once do not retry in step. 0 means the defaults.
	InitialBackoff, MaxBackoff time.Duration
	// RequestTimeout bounds a request that makes no progress: a listing
	// page or the opening of an object (retries included) that takes
	// longer fails, and so does a read that delivers no byte for that
	// long. 0 means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// MaxListPages and ListTimeout bound one whole listing, which a
	// bucket whose page tokens never end could make last forever: past
	// either it fails. 0 means DefaultMaxListPages, DefaultListTimeout.
	MaxListPages int
	ListTimeout  time.Duration
}

// Bounds of a whole listing. The largest listings of a crawl are a job's
// builds (a job with a build an hour for ten years lists 88 pages of
// 1,000) and a run's objects (rarely past 20,000).
const (
	DefaultMaxListPages = 10000
	DefaultListTimeout  = 30 * time.Minute
)

// ErrListingLoop is matched (errors.Is) by the error of a listing whose
// page tokens repeat (A, B, A): it would never end.
var ErrListingLoop = errors.New("page token repeated")

// ErrListingTooLong is matched (errors.Is) by the error of a listing
// past GCSOptions.MaxListPages or ListTimeout.
var ErrListingTooLong = errors.New("listing too long")

// DefaultBucket is where OpenShift CI stores new runs since 2026, readable
// without credentials. The older gs://test-platform-results needs them.
const DefaultBucket = "gs://test-platform-results-public"

// Defaults of GCSOptions.
const (
	DefaultMaxAttempts    = 6
	DefaultRequestTimeout = time.Minute
	defaultInitialBackoff = 500 * time.Millisecond
	defaultMaxBackoff     = 16 * time.Second
)

// ErrStalled is returned (wrapped) for a bucket request that made no
// progress within GCSOptions.RequestTimeout.
var ErrStalled = errors.New("no progress")

// ErrAccessDenied is matched (errors.Is) by the error of a request the
// bucket refused: HTTP 401 or 403, for anonymous reads of a bucket that
// needs credentials, or credentials the bucket does not accept.
var ErrAccessDenied = errors.New("access denied")

// AccessError is a request the bucket refused (HTTP 401 or 403).
type AccessError struct {
	Bucket string // the bucket's name
	Code   int    // the HTTP status
	Auth   bool   // the request carried credentials
	Err    error  // the client's error
}

func (e *AccessError) Error() string {
	who := "anonymous reads"
	if e.Auth {
		who = "these credentials"
	}
	return fmt.Sprintf("gs://%s refuses %s (HTTP %d)", e.Bucket, who, e.Code)
}

// Is makes AccessError match ErrAccessDenied.
func (e *AccessError) Is(target error) bool { return target == ErrAccessDenied }

func (e *AccessError) Unwrap() error { return e.Err }

// denied turns a 401 or 403 of the client into an AccessError and leaves
// any other error as it is.
func (g *GCS) denied(err error) error {
	var ge *googleapi.Error
	if errors.As(err, &ge) && (ge.Code == http.StatusUnauthorized || ge.Code == http.StatusForbidden) {
		return &AccessError{Bucket: g.name, Code: ge.Code, Auth: g.auth, Err: err}
	}
	return err
}

// GCS is a Source over a Google Cloud Storage bucket. It honours
// STORAGE_EMULATOR_HOST, so any GCS-API server can stand in for GCS.
type GCS struct {
	client   *storage.Client
	bkt      *storage.BucketHandle
	name     string
	prefix   string // "" or "some/prefix/"
	pageSize int
	timeout  time.Duration
	auth     bool // requests carry credentials
	// Bounds of one whole listing (GCSOptions.MaxListPages, ListTimeout).
	maxPages    int
	listTimeout time.Duration
}

var _ prowcrawl.Source = (*GCS)(nil)

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
	g := NewGCSFromClient(client, name, prefix)
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

// setRetry configures the client's retries.
func setRetry(client *storage.Client, opts GCSOptions) {
	attempts := opts.MaxAttempts
	if attempts <= 0 {
		attempts = DefaultMaxAttempts
	}
	initial, maxWait := opts.InitialBackoff, opts.MaxBackoff
	if initial <= 0 {
		initial = defaultInitialBackoff
	}
	if maxWait <= 0 {
		maxWait = defaultMaxBackoff
	}
	// The client retries until its context ends by default; a bound on
	// attempts turns a bucket that keeps failing into a recorded error.
	client.SetRetry(
		storage.WithPolicy(storage.RetryAlways),
		storage.WithBackoff(gax.Backoff{Initial: initial, Max: max(initial, maxWait), Multiplier: 2}),
		storage.WithMaxAttempts(attempts),
	)
}

// NewGCSFromClient wraps an existing client, as tests do with the client of
// an in-process fake-gcs-server. The client's retry settings are left as
// they are; requests time out after DefaultRequestTimeout.
func NewGCSFromClient(client *storage.Client, bucket, prefix string) *GCS {
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return &GCS{client: client, bkt: client.Bucket(bucket), name: bucket, prefix: prefix, timeout: DefaultRequestTimeout,
		maxPages: DefaultMaxListPages, listTimeout: DefaultListTimeout}
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

// List lists objects page by page, asking only for names, sizes and
// encodings. A page that does not arrive within the request timeout, its
// retries included, fails the listing.
func (g *GCS) List(ctx context.Context, q prowcrawl.Query) ([]prowcrawl.Entry, error) {
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
			return nil, fmt.Errorf("list %s: %w", where, g.denied(wd.explain(err)))
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
func (g *GCS) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	ctx, wd := newWatchdog(ctx, g.timeout)
	wd.kick()
	r, err := g.bkt.Object(g.prefix + name).NewReader(ctx)
	wd.pause()
	err = g.denied(wd.explain(err))
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

// watchdog cancels a request's context when one step of it (opening,
// a listing page, one read) takes longer than its timeout. The client's
// own retries run inside the step, so the timeout bounds them too.
type watchdog struct {
	cancel  context.CancelCauseFunc
	timer   *time.Timer
	timeout time.Duration
	fired   atomic.Bool
}

func newWatchdog(ctx context.Context, timeout time.Duration) (context.Context, *watchdog) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watchdog{cancel: cancel, timeout: timeout}
	w.timer = time.AfterFunc(timeout, func() {
		w.fired.Store(true)
		cancel(w.err())
	})
	w.timer.Stop()
	return ctx, w
}

func (w *watchdog) err() error { return fmt.Errorf("%w for %s", ErrStalled, w.timeout) }

// kick starts a step; pause ends it.
func (w *watchdog) kick()  { w.timer.Reset(w.timeout) }
func (w *watchdog) pause() { w.timer.Stop() }

// stop releases the context.
func (w *watchdog) stop() {
	w.timer.Stop()
	w.cancel(context.Canceled)
}

// explain replaces the context error the client returns after the
// watchdog fired by the reason it fired.
func (w *watchdog) explain(err error) error {
	if err == nil || err == io.EOF || !w.fired.Load() {
		return err
	}
	return w.err()
}
