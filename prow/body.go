package prow

import (
	"bytes"
	"errors"
	"fmt"
)

// BodyKind is what an artifact's body must be.
type BodyKind string

// The kinds of body CheckBody knows.
const (
	BodyJSON BodyKind = "JSON"
	BodyXML  BodyKind = "XML"
)

// ErrWrongBody is matched (errors.Is) by the error of CheckBody: the body
// is not of its kind, as when a proxy or a bucket's web front answers a
// read with an HTML page (200) in place of the object. Such a body says
// nothing of the artifact, so the artifact was not read, rather than
// malformed.
var ErrWrongBody = errors.New("body is not of its kind")

// CheckBody looks at the first bytes of a body (512 are enough) and says
// whether they are a body of another format: markup where JSON was
// expected, JSON or an HTML page where XML was. Leading white space and a byte order mark
// are passed over; an empty body passes (its parser says what is wrong).
func CheckBody(kind BodyKind, head []byte) error {
	b := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(b) == 0 {
		return nil
	}
	lower := bytes.ToLower(b[:min(len(b), 512)])
	if bytes.HasPrefix(lower, []byte("<?xml")) {
		// XHTML: the page after the XML declaration.
		if _, rest, ok := bytes.Cut(lower, []byte("?>")); ok {
			lower = bytes.TrimLeft(rest, " \t\r\n")
		}
	}
	html := bytes.HasPrefix(lower, []byte("<!doctype html")) || bytes.HasPrefix(lower, []byte("<html"))
	// Only a body of another format is caught here; other garbage is the
	// parser's to report, as malformed.
	switch {
	case kind == BodyJSON && b[0] == '<':
	case kind == BodyXML && (b[0] == '{' || b[0] == '['):
	case html:
	default:
		return nil
	}
	what := "markup"
	switch {
	case html:
		what = "an HTML page"
	case b[0] != '<':
		what = "JSON"
	}
	return fmt.Errorf("%w: %s where %s was expected (%q...)", ErrWrongBody, what, kind, b[:min(len(b), 40)])
}
