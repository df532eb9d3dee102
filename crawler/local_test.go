package crawler

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/gcs"
	"github.com/openshift-eng/prowcrawl/mirror"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ci")
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDirListsLikeGCS lists one tree from a directory and from the emulator
// and expects the same answers.
func TestDirListsLikeGCS(t *testing.T) {
	files := map[string]string{
		"logs/job-a/99/started.json":                       "{}",
		"logs/job-a/100/started.json":                      "{}",
		"logs/job-a/100/artifacts/e2e/junit/junit_e2e.xml": "<testsuite/>",
		"logs/job-a/latest-build.txt":                      "100",
		"logs/job-b/1584987912955498496/started.json":      "{}",
		"pr-logs/directory/job-c/1.txt":                    "gs://ci/pr-logs/pull/1/job-c/1",
	}
	dir := writeTree(t, files)
	local, err := mirror.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if local.Bucket() != "ci" {
		t.Errorf("Bucket() = %q, want the directory's name", local.Bucket())
	}
	newEmulator(t, "ci", bucketObjects(t, dir, "ci"))
	remote, err := gcs.New(t.Context(), "gs://ci", gcs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	queries := []prowcrawl.Query{
		{Prefix: "logs/", Delimiter: "/"},
		{Prefix: "logs/job-a/", Delimiter: "/"},
		{Prefix: "logs/job-a/", Delimiter: "/", StartOffset: "logs/job-a/99"},
		{Prefix: "logs/job-a/100/"},
		{Prefix: "logs/job-a/1"},
		{Prefix: "pr-logs/directory/job-c/", Delimiter: "/"},
		{Prefix: "logs/nothing/", Delimiter: "/"},
		{Prefix: "logs/nothing/"},
	}
	for _, q := range queries {
		got, err := local.List(t.Context(), q)
		if err != nil {
			t.Fatalf("local %+v: %v", q, err)
		}
		want, err := remote.List(t.Context(), q)
		if err != nil {
			t.Fatalf("gcs %+v: %v", q, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("query %+v:\nlocal %v\ngcs   %v", q, got, want)
		}
	}
}
