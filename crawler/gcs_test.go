package crawler

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/gcs"
)

func gzipBytes(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func obj(bucket, name string, content []byte) fakestorage.Object {
	return fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: name}, Content: content}
}

// TestGCSReads reads plain, gzip content-encoded and missing objects through
// the default (XML) reads and through JSON reads.
func TestGCSReads(t *testing.T) {
	const log = "W1118 03:11:02.941578       1 clientconn.go:1120] dial tcp 10.0.61.114:2379: connect: connection refused\n"
	for _, jsonReads := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", jsonReads), func(t *testing.T) {
			encoded := obj("ci", "logs/j/1/artifacts/pods/etcd.log", gzipBytes(t, log))
			encoded.ContentEncoding = "gzip"
			newEmulator(t, "ci", []fakestorage.Object{
				obj("ci", "logs/j/1/started.json", []byte(`{"timestamp":1700000000}`)),
				encoded,
				// Gzip bytes without Content-Encoding, as a step may upload them.
				obj("ci", "logs/j/1/artifacts/raw.gz", gzipBytes(t, log)),
			})
			src, err := gcs.New(t.Context(), "gs://ci", gcs.Options{JSONReads: jsonReads})
			if err != nil {
				t.Fatal(err)
			}
			rd := &reader{src: src}
			for _, name := range []string{"logs/j/1/artifacts/pods/etcd.log", "logs/j/1/artifacts/raw.gz"} {
				b, err := rd.readAll(t.Context(), prowcrawl.Entry{Name: name, Size: -1}, 1<<20, nil)
				if err != nil {
					t.Fatalf("read %s: %v", name, err)
				}
				if string(b) != log {
					t.Errorf("read %s = %q, want the decompressed log", name, b)
				}
			}
			b, err := rd.readAll(t.Context(), prowcrawl.Entry{Name: "logs/j/1/started.json", Size: -1}, 1<<20, nil)
			if err != nil || string(b) != `{"timestamp":1700000000}` {
				t.Errorf("read started.json = %q, %v", b, err)
			}
			if _, err := rd.readAll(t.Context(), prowcrawl.Entry{Name: "logs/j/1/finished.json", Size: -1}, 1<<20, nil); !errors.Is(err, prowcrawl.ErrNotExist) {
				t.Errorf("read of a missing object: err = %v, want ErrNotExist", err)
			}
			if _, err := rd.readAll(t.Context(), prowcrawl.Entry{Name: "logs/j/1/started.json", Size: -1}, 4, nil); !errors.Is(err, ErrTooLarge) {
				t.Errorf("read past the cap: err = %v, want ErrTooLarge", err)
			}
		})
	}
}

// TestGCSListPaginates lists more than a page, with a delimiter and
// without one. (The emulator pages objects but not prefixes, so the
// delimited listing that pages is one of link objects, as pr-logs/directory
// holds.)
func TestGCSListPaginates(t *testing.T) {
	var objs []fakestorage.Object
	for i := range 300 {
		id := 1000 + i
		objs = append(objs,
			obj("ci", fmt.Sprintf("logs/job/%d/started.json", id), []byte("{}")),
			obj("ci", fmt.Sprintf("pr-logs/directory/job/%d.txt", id), []byte("gs://ci/pr-logs/pull/1/job/1")))
	}
	objs = append(objs, obj("ci", "logs/job/latest-build.txt", []byte("1299")))
	e := newEmulator(t, "ci", objs)
	// Real GCS pages at 1000 entries; the emulator pages only when asked.
	src, err := gcs.New(t.Context(), "gs://ci", gcs.Options{PageSize: 125})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		q           prowcrawl.Query
		dirs, files int
		minRequests int
		first, last string
	}{
		{q: prowcrawl.Query{Prefix: "logs/job/", Delimiter: "/"}, dirs: 300, files: 1, minRequests: 1, first: "logs/job/1000/", last: "logs/job/latest-build.txt"},
		{q: prowcrawl.Query{Prefix: "pr-logs/directory/job/", Delimiter: "/"}, files: 300, minRequests: 3, first: "pr-logs/directory/job/1000.txt", last: "pr-logs/directory/job/1299.txt"},
		{q: prowcrawl.Query{Prefix: "logs/"}, files: 301, minRequests: 3, first: "logs/job/1000/started.json", last: "logs/job/latest-build.txt"},
		{q: prowcrawl.Query{Prefix: "logs/job/", Delimiter: "/", StartOffset: "logs/job/1290"}, dirs: 10, files: 1, minRequests: 1, first: "logs/job/1290/", last: "logs/job/latest-build.txt"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%+v", tc.q), func(t *testing.T) {
			e.counts()
			ents, err := src.List(t.Context(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var dirs, files int
			for _, e := range ents {
				if e.Prefix {
					dirs++
				} else {
					files++
				}
			}
			if dirs != tc.dirs || files != tc.files {
				t.Errorf("listed %d prefixes and %d objects, want %d and %d", dirs, files, tc.dirs, tc.files)
			}
			if len(ents) > 0 && (ents[0].Name != tc.first || ents[len(ents)-1].Name != tc.last) {
				t.Errorf("listing runs %s .. %s, want %s .. %s", ents[0].Name, ents[len(ents)-1].Name, tc.first, tc.last)
			}
			if lists, _ := e.counts(); lists < tc.minRequests {
				t.Errorf("listing took %d requests, want at least %d pages", lists, tc.minRequests)
			}
		})
	}
}

func TestOpenSource(t *testing.T) {
	tests := []struct {
		url, want string
	}{
		{url: "", want: "no bucket"},
		{url: "s3://x", want: "unsupported scheme"},
		{url: "gs://", want: "no bucket name"},
		{url: "testdata/does-not-exist", want: "no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			_, err := Open(t.Context(), tc.url, gcs.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open(%q) = %v, want an error containing %q", tc.url, err, tc.want)
			}
		})
	}
}
