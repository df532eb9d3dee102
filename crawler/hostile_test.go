package crawler

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/gcs"
	"github.com/openshift-eng/prowcrawl/mirror"
)

const hostileJob = "periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade"

// gzipOf compresses b.
func gzipOf(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestHostileArtifacts feeds one run per kind of bad input and expects
// each recorded on its run while the crawl goes on, and nothing stored
// that is not valid UTF-8.
func TestHostileArtifacts(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	run := func(id int) string { return fmt.Sprintf("logs/%s/%d/", hostileJob, id) }
	ok := func(id int) map[string]string {
		return map[string]string{
			run(id) + "started.json":  started(t0.Add(time.Duration(id) * time.Minute)),
			run(id) + "finished.json": finished(t0.Add(time.Hour), "FAILURE"),
		}
	}
	const refused = "dial tcp 10.0.61.114:2379: connect: connection refused"
	junitDir := "artifacts/e2e-aws-ovn-upgrade/openshift-e2e-test/artifacts/junit/"
	bomb := gzipOf(t, bytes.Repeat([]byte(refused+"\n"), (32<<20)/(len(refused)+1)))
	files := map[string]string{}
	add := func(id int, extra map[string]string) {
		for k, v := range ok(id) {
			files[k] = v
		}
		for k, v := range extra {
			if v == "" {
				delete(files, run(id)+k)
				continue
			}
			files[run(id)+k] = v
		}
	}
	tests := []struct {
		id     int
		what   string
		files  map[string]string
		status string // fetch_status
		errors string // kinds of run_errors
		check  string // SQL about the run that must give "1"
	}{
		{id: 1, what: "truncated started.json", files: map[string]string{"started.json": `{"timestamp": 17`}, status: "error", errors: "parse"},
		{id: 2, what: "NUL and invalid UTF-8 in started.json", files: map[string]string{"started.json": "{\"timestamp\":1700000000,\"x\":\"\x00\xff\"}"}, status: "error", errors: "parse"},
		{id: 3, what: "malformed prowjob.json", files: map[string]string{"prowjob.json": `{"spec": [}`}, status: "complete", errors: "parse"},
		{id: 4, what: "malformed finished.json", files: map[string]string{"finished.json": `{"timestamp": 1700000000, "result": "SUCC`}, status: "error", errors: "parse"},
		{id: 5, what: "deeply nested clusterversion.json", files: map[string]string{
			"artifacts/e2e/gather-extra/artifacts/clusterversion.json": strings.Repeat("[", 200000) + strings.Repeat("]", 200000)},
			status: "complete", errors: "parse"},
		{id: 6, what: "malformed JUnit", files: map[string]string{
			junitDir + "junit_e2e_1.xml": `<testsuite><testcase name="a"/><testcase name="b"><failure>x</fail`},
			status: "complete", errors: "parse", check: `SELECT count(*) = 1 FROM tests WHERE job = ? AND build_id = ?`},
		{id: 7, what: "deeply nested JUnit", files: map[string]string{
			junitDir + "junit_e2e_1.xml": "<testsuites>" + strings.Repeat("<testsuite>", 50000)},
			status: "complete", errors: "parse"},
		{id: 8, what: "NUL bytes and invalid UTF-8 in JUnit and a log", files: map[string]string{
			junitDir + "junit_e2e_1.xml": "<testsuite name=\"s\xff\"><testcase name=\"t\x00\xc3\x28\"><failure message=\"m\xfe\">b\x00ody\xff</failure></testcase></testsuite>",
			"build-log.txt":              "\x00\xff\xfe " + refused + " \xc3\x28\x00\n"},
			status: "complete", errors: "",
			check: `SELECT count(*) = 1 FROM tests t JOIN run_symptoms s USING (job, build_id) WHERE job = ? AND build_id = ? AND t.status = 'fail'`},
		{id: 9, what: "gzip build log expanding a thousandfold", files: map[string]string{"build-log.txt": string(bomb)},
			status: "complete", errors: "size",
			check: `SELECT bytes_read < 2 << 20 FROM runs WHERE job = ? AND build_id = ? AND EXISTS (SELECT 1 FROM run_symptoms s WHERE s.job = runs.job AND s.build_id = runs.build_id)`},
		{id: 10, what: "gzip started.json expanding past the metadata cap", files: map[string]string{
			"started.json": string(gzipOf(t, append([]byte(`{"timestamp":1700000000,"pad":"`), bytes.Repeat([]byte(" "), 8<<20)...)))},
			status: "error", errors: "size"},
		{id: 11, what: "a JUnit name with a backslash and a control character", files: map[string]string{
			"artifacts/e2e/a\\b\x01junit_x.xml": `<testsuite><testcase name="a"/></testsuite>`},
			status: "partial", errors: "read"},
		{id: 12, what: "no finished.json and a bad prowjob.json", files: map[string]string{"finished.json": "", "prowjob.json": "\x00"},
			status: "complete", errors: "parse"},
	}
	for _, tc := range tests {
		add(tc.id, tc.files)
	}
	src, err := mirror.New(writeTree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	d := openDB(t)
	cfg := Config{Jobs: upgradeJobs, Since: t0.Add(-time.Hour), Rules: builtinRules, MaxObjectBytes: 1 << 20}
	sum, err := New(src, d, cfg).Run(t.Context())
	if !errors.Is(err, ErrRunsFailed) || sum.New != len(tests) {
		t.Fatalf("crawl: %v, %+v; want every run stored", err, sum)
	}
	for _, tc := range tests {
		t.Run(tc.what, func(t *testing.T) {
			got := query(t, d, `SELECT fetch_status, coalesce((SELECT group_concat(kind, ',') FROM run_errors e
				WHERE e.job = r.job AND e.build_id = r.build_id), '') FROM runs r WHERE build_id = ?`, tc.id)
			if want := tc.status + "|" + tc.errors; len(got) != 1 || got[0] != want {
				t.Errorf("run %d: %q, want %q", tc.id, got, want)
			}
			if tc.check != "" {
				if got := query(t, d, tc.check, hostileJob, tc.id); len(got) != 1 || got[0] != "1" {
					t.Errorf("run %d: %s gave %q", tc.id, tc.check, got)
				}
			}
		})
	}
	for _, row := range strings.Split(dumpDB(t, d)+strings.Join(query(t, d, `SELECT * FROM run_symptoms`), "\n"), "\n") {
		if !utf8.ValidString(row) || strings.ContainsRune(row, 0) {
			t.Errorf("stored text that is not valid UTF-8 or holds NUL: %q", row)
		}
	}
}

// TestHostileNamesGCS: object names with "..", backslashes and control
// characters are opaque keys to the GCS source: read like any other, and
// never turned into local paths.
func TestHostileNamesGCS(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	dir := "logs/a-4.14-upgrade/1/"
	junit := []byte(`<testsuite><testcase name="t"/></testsuite>`)
	names := []string{"artifacts/a\\b/junit_1.xml", "artifacts/..\\..\\junit_2.xml", "artifacts/\x01\t/junit_3.xml", "artifacts/%2e%2e/junit_4.xml"}
	objs := []fakestorage.Object{
		obj("ci", dir+"started.json", []byte(started(t0))),
		obj("ci", dir+"finished.json", []byte(finished(t0.Add(time.Hour), "SUCCESS"))),
	}
	for i, n := range names {
		objs = append(objs, obj("ci", dir+n, bytes.Replace(junit, []byte(`"t"`), fmt.Appendf(nil, `"t%d"`, i), 1)))
	}
	e := newEmulator(t, "ci", objs)
	src, err := gcs.New(t.Context(), "gs://ci", gcs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := openDB(t)
	if _, err := New(src, d, Config{Jobs: upgradeJobs, Since: t0.Add(-time.Hour)}).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := query(t, d, `SELECT group_concat(name, ',') FROM (SELECT name FROM tests ORDER BY name)`); got[0] != "t0,t1,t2,t3" {
		t.Errorf("tests %q, want one of each strangely named file", got)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for m := range e.methods {
		if m != http.MethodGet {
			t.Errorf("a %s request reached the bucket", m)
		}
	}
}

// catastrophicRules are patterns that take exponential time in a
// backtracking engine.
const catastrophicRules = `symptoms:
  - id: catastrophic
    title: nested quantifiers
    files: ["build-log.txt"]
    match:
      - lines:
          any: ['(a+)+$', '(x+x+)+y', '^(a|aa)*c$', '(.*a){12}b']
`

func catastrophicEngine(t testing.TB) *classify.Engine {
	t.Helper()
	user, err := classify.ParseRules("catastrophic.yaml", []byte(catastrophicRules))
	if err != nil {
		t.Fatal(err)
	}
	e, err := classify.NewEngine(classify.Merge(classify.Builtin(), user))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// catastrophicLog is lines of a's that almost match, each 60 KiB (just
// under the engine's 64 KiB window), n bytes in all.
func catastrophicLog(n int) []byte {
	line := append(bytes.Repeat([]byte("a"), 60<<10), "!x\n"...)
	var b bytes.Buffer
	for b.Len() < n {
		b.Write(line)
	}
	return b.Bytes()
}

// TestPathologicalRule: Go's regular expressions (RE2) run in time linear
// in the input, so rules a backtracking engine would take years over end
// in a time proportional to the log. The bound is generous on purpose; the
// benchmark gives the figure.
func TestPathologicalRule(t *testing.T) {
	eng := catastrophicEngine(t)
	size := 2 << 20
	if raceEnabled {
		size = 256 << 10
	}
	log := catastrophicLog(size)
	start := time.Now()
	scan := eng.Begin(classify.RunInfo{})
	if err := scan.File(t.Context(), "build-log.txt", bytes.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > time.Minute {
		t.Errorf("classifying %d KiB took %s", len(log)>>10, took)
	} else {
		t.Logf("classified %d KiB of near-misses in %s", len(log)>>10, took.Round(time.Millisecond))
	}
	for _, m := range scan.Matches() {
		if m.Symptom == "catastrophic" {
			t.Errorf("matched %+v, want no match", m)
		}
	}
}

func BenchmarkPathologicalRule(b *testing.B) {
	eng := catastrophicEngine(b)
	log := catastrophicLog(4 << 20)
	b.SetBytes(int64(len(log)))
	for b.Loop() {
		scan := eng.Begin(classify.RunInfo{})
		if err := scan.File(b.Context(), "build-log.txt", bytes.NewReader(log)); err != nil {
			b.Fatal(err)
		}
	}
}
