package crawler

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/mirror"
)

// TestErrorsNameTheObjectOnce: a recorded error names its object once,
// whichever layer found the problem.
func TestErrorsNameTheObjectOnce(t *testing.T) {
	var full bytes.Buffer
	zw := gzip.NewWriter(&full)
	for i := range 20000 {
		fmt.Fprintf(zw, "I1118 03:11:%02d.%06d       1 step.go:42] line %d\n", i%60, i, i)
	}
	zw.Close()
	cut := string(full.Bytes()[:full.Len()/2])
	const dir = "logs/periodic-ci-openshift-release-master-ci-4.14-e2e-aws-ovn-upgrade/2125900000000000001/"
	src, err := mirror.New(writeTree(t, map[string]string{
		dir + "started.json":  `{"timestamp":1795600000}`,
		dir + "finished.json": `{"timestamp":1795603000,"passed":false,"result":"FAILURE"}`,
		dir + "build-log.txt": cut,
		dir + "artifacts/e2e-aws-ovn-upgrade/openshift-e2e-test/build-log.txt": cut,
	}))
	if err != nil {
		t.Fatal(err)
	}
	d := openDB(t)
	cfg := Config{Since: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Rules: builtinRules}
	if _, err := New(src, d, cfg).Run(t.Context()); err == nil {
		t.Fatal("a run with logs cut short: no error")
	}
	msgs := query(t, d, `SELECT object, message FROM run_errors`)
	if len(msgs) != 2 {
		t.Fatalf("errors %q, want one per cut log", msgs)
	}
	for _, m := range msgs {
		object, message, _ := strings.Cut(m, "|")
		if n := strings.Count(message, object); n != 1 || message != "read "+object+": gzip: unexpected EOF" {
			t.Errorf("%q names its object %d times, want once: read OBJECT: gzip: unexpected EOF", message, n)
		}
	}
}
