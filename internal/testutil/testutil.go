// Package testutil holds the helpers the tests of several packages share.
// It is for tests only: nothing outside a _test.go file imports it.
package testutil

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Golden compares got with testdata/name of the package under test, or
// rewrites that file when the test runs with -update. pkg is the package
// as go test is given it ("./report"), for the messages that say how to
// rewrite the file.
func Golden(t testing.TB, pkg, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test %s -update to write it)", err, pkg)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test %s -update rewrites it):\n--- got\n%s\n--- want\n%s", name, pkg, got, want)
	}
}

// Updating says whether the test runs with -update: a test with golden
// files of its own (an image compared within a tolerance) rewrites them.
func Updating() bool { return *update }
