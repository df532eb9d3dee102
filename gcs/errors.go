package gcs

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"

	"cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"
)

// ErrListingLoop is matched (errors.Is) by the error of a listing whose
// page tokens repeat (A, B, A): it would never end.
var ErrListingLoop = errors.New("page token repeated")

// ErrListingTooLong is matched (errors.Is) by the error of a listing
// past Options.MaxListPages or ListTimeout.
var ErrListingTooLong = errors.New("listing too long")

// ErrStalled is returned (wrapped) for a bucket request that made no
// progress within Options.RequestTimeout.
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
func (g *Source) denied(err error) error {
	var ge *googleapi.Error
	if errors.As(err, &ge) && (ge.Code == http.StatusUnauthorized || ge.Code == http.StatusForbidden) {
		return &AccessError{Bucket: g.name, Code: ge.Code, Auth: g.auth, Err: err}
	}
	return err
}

// reachError is a request that never reached the bucket's server (no
// route, refused, a name that did not resolve), said without the request's
// URL and its query string: the host and the cause, in one line.
type reachError struct {
	host string
	err  error // the whole error, for errors.Is and errors.As
	why  string
}

func (e *reachError) Error() string { return "cannot reach " + e.host + ": " + e.why }
func (e *reachError) Unwrap() error { return e.err }

// concise is err with a request's *url.Error said as a reachError; any
// other error as it is.
func concise(err error) error {
	var ue *url.Error
	if err == nil || !errors.As(err, &ue) {
		return err
	}
	host := ue.URL
	if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
		host = u.Host
	}
	why := ue.Err.Error()
	var op *net.OpError
	var dns *net.DNSError
	switch {
	case errors.As(ue.Err, &dns):
		why = "the name " + dns.Name + " did not resolve (" + dns.Err + ")"
	case errors.As(ue.Err, &op) && op.Err != nil:
		why = op.Op + ": " + op.Err.Error()
	}
	return &reachError{host: host, err: err, why: why}
}

// shouldRetry is the storage client's choice of errors to retry, and a
// name that did not resolve: in CI a resolver's hiccup is as transient as a
// reset connection.
func shouldRetry(err error) bool {
	var dns *net.DNSError
	return storage.ShouldRetry(err) || errors.As(err, &dns)
}
