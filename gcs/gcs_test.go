package gcs

import (
	"io"
	"net"
	"net/http/httptest"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/openshift-eng/prowcrawl"
)

// newEmulator serves objs from fake-gcs-server in process, behind a
// loopback listener reached through STORAGE_EMULATOR_HOST as a user would;
// tests using it cannot run in parallel.
func newEmulator(t *testing.T, bucket string, objs []fakestorage.Object) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fake, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		InitialObjects: objs,
		NoListener:     true,
		PublicHost:     l.Addr().String(), // XML-API reads are routed by host
	})
	if err != nil {
		t.Fatal(err)
	}
	fake.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: bucket})
	srv := httptest.NewUnstartedServer(fake.HTTPHandler())
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(func() { srv.Close(); fake.Stop() })
	t.Setenv("STORAGE_EMULATOR_HOST", l.Addr().String())
}

func obj(bucket, name string, content []byte) fakestorage.Object {
	return fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: name}, Content: content}
}

// TestGCSPrefix reads a bucket whose runs live under a prefix.
func TestGCSPrefix(t *testing.T) {
	newEmulator(t, "ci", []fakestorage.Object{obj("ci", "mirror/logs/j/1/started.json", []byte("{}"))})
	src, err := New(t.Context(), "gs://ci/mirror/", Options{})
	if err != nil {
		t.Fatal(err)
	}
	ents, err := src.List(t.Context(), prowcrawl.Query{Prefix: "logs/", Delimiter: "/"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name != "logs/j/" {
		t.Fatalf("listing under the prefix = %v, want [logs/j/]", ents)
	}
	rc, err := src.Open(t.Context(), "logs/j/1/started.json")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if b, _ := io.ReadAll(rc); string(b) != "{}" {
		t.Errorf("read %q", b)
	}
}
