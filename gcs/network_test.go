package gcs

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/openshift-eng/prowcrawl"
)

// flakyResolver is an HTTP client whose first fail dials fail as a name
// that did not resolve does, then dials the emulator.
func flakyResolver(fail int32, dials *atomic.Int32) *http.Client {
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) <= fail {
			return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: "storage.example", IsNotFound: true}}
		}
		return d.DialContext(ctx, network, addr)
	}}}
}

// TestDNSRetried: a name that did not resolve is retried as other
// transient errors are; one that never resolves fails in one line that
// names the host and the cause, without the request's URL. Before, the
// first DNS failure failed the listing, and the message held the whole
// API URL and its query string.
func TestDNSRetried(t *testing.T) {
	newEmulator(t, "ci", []fakestorage.Object{obj("ci", "logs/j/1/started.json", []byte("{}"))})
	var dials atomic.Int32
	src, err := New(t.Context(), "gs://ci", Options{HTTPClient: flakyResolver(2, &dials), MaxAttempts: 4, InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ents, err := src.List(t.Context(), prowcrawl.Query{Prefix: "logs/", Delimiter: "/"})
	if err != nil || len(ents) != 1 {
		t.Fatalf("after two DNS failures: %v, %v; want the listing", ents, err)
	}

	dials.Store(0)
	never, err := New(t.Context(), "gs://ci", Options{HTTPClient: flakyResolver(1000, &dials), MaxAttempts: 3, InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = never.List(t.Context(), prowcrawl.Query{Prefix: "logs/", Delimiter: "/"})
	if err == nil {
		t.Fatal("a name that never resolves: no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, "cannot reach ") || !strings.Contains(msg, "did not resolve (no such host)") || strings.Contains(msg, "?") || strings.Contains(msg, "alt=json") {
		t.Errorf("error %q: want the host and the cause, without the request's URL", msg)
	}
	if n := dials.Load(); n < 3 {
		t.Errorf("%d dials, want the 3 attempts", n)
	}
}
