// Package fakegcs loads a directory as the objects of a bucket in
// fake-gcs-server, for the tests that crawl a bucket through the GCS
// client. It is for tests only: nothing outside a _test.go file imports
// it.
package fakegcs

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// Objects loads dir, a directory mirroring a bucket, as objects of bucket.
// A file that holds gzip bytes becomes an object stored with
// Content-Encoding gzip, as Prow uploads logs. keep, unless nil, is given
// every object before it is added: it may change it, or leave it out by
// returning false.
func Objects(tb testing.TB, dir, bucket string, keep func(*fakestorage.Object) bool) []fakestorage.Object {
	tb.Helper()
	var objs []fakestorage.Object
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		o := fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: filepath.ToSlash(rel)}, Content: b}
		if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
			o.ContentEncoding = "gzip"
		}
		if keep == nil || keep(&o) {
			objs = append(objs, o)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return objs
}
