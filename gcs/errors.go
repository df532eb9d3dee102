package gcs

import (
	"errors"
	"fmt"
	"net/http"

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
