package gcs

import (
	"net/http"
	"time"

	"cloud.google.com/go/storage"
	"github.com/googleapis/gax-go/v2"
)

// Options configures the GCS source.
type Options struct {
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

// DefaultBucket is where OpenShift CI stores new runs since 2026, readable
// without credentials. The older gs://test-platform-results needs them.
const DefaultBucket = "gs://test-platform-results-public"

// Defaults of Options.
const (
	DefaultMaxAttempts    = 6
	DefaultRequestTimeout = time.Minute
	defaultInitialBackoff = 500 * time.Millisecond
	defaultMaxBackoff     = 16 * time.Second
)

// setRetry configures the client's retries.
func setRetry(client *storage.Client, opts Options) {
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
		storage.WithErrorFunc(shouldRetry),
	)
}
