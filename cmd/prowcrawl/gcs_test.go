package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/openshift-eng/prowcrawl/internal/fakegcs"
)

// emulate serves the objects of dir as bucket from fake-gcs-server on a
// loopback listener, reached through STORAGE_EMULATOR_HOST as a user would
// reach it; wrap, unless nil, stands in front of its handler.
func emulate(t *testing.T, bucket, dir string, wrap func(http.Handler) http.Handler) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var objs []fakestorage.Object
	if dir != "" {
		objs = fakegcs.Objects(t, dir, bucket, func(o *fakestorage.Object) bool {
			// Under -short, the sample's tests crawl one job.
			return dir != sampleBucket || strings.Contains(o.Name, shortJob())
		})
	}
	fake, err := fakestorage.NewServerWithOptions(fakestorage.Options{InitialObjects: objs, NoListener: true, PublicHost: l.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	fake.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: bucket})
	h := fake.HTTPHandler()
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(func() { srv.Close(); fake.Stop() })
	t.Setenv("STORAGE_EMULATOR_HOST", l.Addr().String())
}

// forbidden answers every request as a bucket that needs credentials does.
func forbidden(http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(`{"error":{"code":403,"message":"anonymous caller does not have storage.objects.list access to the Google Cloud Storage bucket.","errors":[{"reason":"forbidden"}]}}`))
	})
}

// TestBucketNeedsCredentials: a bucket that answers 403 stops the crawl
// with one sentence that says what to do, and exit status 2.
func TestBucketNeedsCredentials(t *testing.T) {
	tests := []struct {
		name, bucket string
		want         []string
	}{
		{"old bucket", "test-platform-results",
			[]string{"gs://test-platform-results refuses anonymous reads (HTTP 403)", "--gcs-auth", "gs://test-platform-results-public"}},
		{"the public one", "test-platform-results-public",
			[]string{"gs://test-platform-results-public refuses anonymous reads (HTTP 403): it needs credentials (--gcs-auth)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			emulate(t, tc.bucket, "", forbidden)
			dbPath := filepath.Join(t.TempDir(), "prowcrawl.db")
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), []string{"crawl", "--bucket", "gs://" + tc.bucket, "--db", dbPath, "--retries", "0"}, &stdout, &stderr)
			if code := exitCode(err, &stderr); code != 2 {
				t.Errorf("exit status %d, want 2 (%v)", code, err)
			}
			msg := stderr.String()
			for _, want := range tc.want {
				if !strings.Contains(msg, want) {
					t.Errorf("stderr %q lacks %q", msg, want)
				}
			}
			if strings.Count(strings.TrimSpace(msg), "\n") != 0 || strings.Count(msg, "googleapi") != 0 {
				t.Errorf("stderr %q: want one sentence, without the client's error", msg)
			}
		})
	}
}

// TestMirrorIsTheBucket: the sample crawled from its directory with
// --mirror-of and from the bucket it mirrors through the emulator give the
// same database, bucket, links and cursors included; and a crawl of the
// bucket after one of its mirror finds nothing new.
func TestMirrorIsTheBucket(t *testing.T) {
	const bucket = "test-platform-results-public"
	emulate(t, bucket, sampleBucket, nil)
	dir := t.TempDir()
	mirror, remote := filepath.Join(dir, "mirror.db"), filepath.Join(dir, "remote.db")
	common := withShortJob("--since", "2019-01-01", "--presubmits", "--now", "2026-12-01")
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), append([]string{"crawl", "--bucket", sampleBucket, "--mirror-of", "gs://" + bucket, "--db", mirror}, common...), &stdout, &stderr); err != nil {
		t.Fatalf("crawl of the mirror: %v\n%s", err, stderr.String())
	}
	if err := run(t.Context(), append([]string{"crawl", "--bucket", "gs://" + bucket, "--db", remote}, common...), &stdout, &stderr); err != nil {
		t.Fatalf("crawl of the bucket: %v\n%s", err, stderr.String())
	}
	a, b := check(t, mirror), check(t, remote)
	if a != b {
		t.Fatalf("the mirror's database differs from the bucket's: %s", firstDiff(a, b))
	}
	if want := "|" + bucket + "|logs/"; !strings.Contains(a, want) || !strings.Contains(a, "https://prow.ci.openshift.org/view/gs/"+bucket+"/logs/") {
		t.Errorf("runs are not stored as the bucket's, with its Prow links:\n%.2000s", a)
	}

	// The bucket after its mirror: the same runs, none new.
	stdout.Reset()
	if err := run(t.Context(), append([]string{"crawl", "--bucket", "gs://" + bucket, "--db", mirror}, common...), &stdout, &stderr); err != nil {
		t.Fatalf("crawl of the bucket after the mirror: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), " 0 new runs,") {
		t.Errorf("the bucket's runs are new to a database of its mirror: %s", stdout.String())
	}

	// The default mirror is the default bucket; a bucket mirrors nothing.
	if err := run(t.Context(), []string{"crawl", "--bucket", "gs://" + bucket, "--mirror-of", "gs://x", "--db", remote}, &stdout, &stderr); exitCode(err, &stderr) != 2 {
		t.Errorf("--mirror-of with a gs:// --bucket: %v, want a usage error", err)
	}
}

// TestProblemsCountedAndGivenUp: a run whose JUnit file the bucket never
// serves fails the crawls that try it until one gives up on it, which says
// so; the next crawl exits 0; a run with a JUnit file cut short is counted
// as a parse problem; status lists both, with the command to retry.
func TestProblemsCountedAndGivenUp(t *testing.T) {
	const bucket = "test-platform-results-public"
	const job = "periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade"
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, id := range []string{"2125900000000000001", "2125900000000000002"} {
		run := "logs/" + job + "/" + id + "/"
		ts := 1795600000 + i*3600
		write(run+"started.json", fmt.Sprintf(`{"timestamp":%d}`, ts))
		write(run+"finished.json", fmt.Sprintf(`{"timestamp":%d,"passed":true,"result":"SUCCESS"}`, ts+3000))
		write(run+"artifacts/junit_operator.xml", `<testsuite name="operator"><testcase name="Run multi-stage test e2e-aws-ovn-upgrade" time="2999"/></testsuite>`)
	}
	write("logs/"+job+"/2125900000000000002/artifacts/junit_operator.xml", `<testsuite name="operator"><testcase name="Run multi-stage`)
	broken := "logs/" + job + "/2125900000000000001/artifacts/junit_operator.xml"
	emulate(t, bucket, dir, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, broken) || strings.Contains(r.URL.EscapedPath(), url.PathEscape(broken)) {
				http.Error(w, "backend error", http.StatusInternalServerError)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	dbPath := filepath.Join(t.TempDir(), "prowcrawl.db")
	crawl := func() (string, string, int) {
		var stdout, stderr bytes.Buffer
		err := run(t.Context(), []string{"crawl", "--bucket", "gs://" + bucket, "--db", dbPath, "--since", "2026-11-01",
			"--retries", "0", "--give-up-after", "2", "--job", "."}, &stdout, &stderr)
		code := exitCode(err, &stderr)
		return stdout.String(), stderr.String(), code
	}
	out, _, code := crawl()
	if code != 1 || !strings.Contains(out, " 1 read errors (0 given up), 1 with parse problems,") {
		t.Errorf("first crawl: exit %d, %q; want 1, one read error and one parse problem", code, out)
	}
	out, errs, code := crawl()
	if code != 1 || !strings.Contains(out, " 1 read errors (1 given up), 0 with parse problems,") || !strings.Contains(errs, "given up after 2 crawls") || !strings.Contains(errs, "crawl --retry-given-up") {
		t.Errorf("second crawl: exit %d, %q, %q; want 1 and the run given up, with the command to retry", code, out, errs)
	}
	out, _, code = crawl()
	if code != 0 || !strings.Contains(out, " 0 read errors (0 given up),") {
		t.Errorf("third crawl: exit %d, %q; want 0: the given-up run is no longer read", code, out)
	}

	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"status", "--db", dbPath}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Runs with problems: 0 not read whole (read again by the next crawl), 1 given up, 1 read with parse problems:",
		"2125900000000000001  given up (2 crawls)",
		"2125900000000000002  parse",
		"prowcrawl crawl --retry-given-up",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("status lacks %q:\n%s", want, stdout.String())
		}
	}
	if err := run(t.Context(), []string{"status", "--db", dbPath, "stray"}, &stdout, &stderr); exitCode(err, &stderr) != 2 {
		t.Errorf("status with a stray argument: %v, want a usage error", err)
	}
}
