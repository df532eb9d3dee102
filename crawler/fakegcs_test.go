package crawler

import (
	"bytes"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// emulator is fake-gcs-server behind a real loopback listener, with every
// request counted, reached through STORAGE_EMULATOR_HOST as a user would.
type emulator struct {
	fake   *fakestorage.Server
	addr   string
	bucket string

	mu    sync.Mutex
	lists int
	reads []string // object names downloaded, in order
}

// newEmulator serves objects from bucket; it sets STORAGE_EMULATOR_HOST for
// the test, so tests using it cannot run in parallel.
func newEmulator(t *testing.T, bucket string, objs []fakestorage.Object) *emulator {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &emulator{addr: l.Addr().String(), bucket: bucket}
	// Buckets must exist even when empty.
	objs = append([]fakestorage.Object(nil), objs...)
	fake, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		InitialObjects: objs,
		NoListener:     true,
		PublicHost:     e.addr, // XML-API reads are routed by host
	})
	if err != nil {
		t.Fatal(err)
	}
	fake.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: bucket})
	e.fake = fake
	srv := httptest.NewUnstartedServer(e.count(fake.HTTPHandler()))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(func() { srv.Close(); fake.Stop() })
	t.Setenv("STORAGE_EMULATOR_HOST", e.addr)
	return e
}

func (e *emulator) count(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		p := r.URL.EscapedPath()
		switch {
		case strings.HasSuffix(p, "/o") && strings.HasPrefix(p, "/storage/v1/b/"):
			e.lists++
		case strings.HasPrefix(p, "/storage/v1/b/") && r.URL.Query().Get("alt") == "media":
			name, _ := url.PathUnescape(p[strings.Index(p, "/o/")+3:])
			e.reads = append(e.reads, name)
		case strings.HasPrefix(p, "/"+e.bucket+"/"):
			name, _ := url.PathUnescape(strings.TrimPrefix(p, "/"+e.bucket+"/"))
			e.reads = append(e.reads, name)
		}
		e.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// counts returns and resets the request counters.
func (e *emulator) counts() (lists int, reads []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	lists, reads = e.lists, e.reads
	e.lists, e.reads = 0, nil
	return lists, reads
}

// bucketObjects loads a directory mirroring a bucket. Files that hold gzip
// bytes become objects stored with Content-Encoding gzip, as Prow uploads
// them.
func bucketObjects(t *testing.T, dir, bucket string) []fakestorage.Object {
	t.Helper()
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
		o := fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: filepath.ToSlash(rel), ContentType: "text/plain"}, Content: b}
		if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
			o.ContentEncoding = "gzip"
		}
		objs = append(objs, o)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return objs
}
