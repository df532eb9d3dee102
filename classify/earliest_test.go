package classify

import (
	"strings"
	"testing"
	"time"
)

// TestEarliestEvidence: a match reports its earliest dated evidence, over
// every file and in whatever order the files come; an undated match (a
// JUnit failure body read first) never hides a dated one; and a time that
// cannot be the run's is no evidence of when it showed the symptom.
func TestEarliestEvidence(t *testing.T) {
	e := engineFor(t, `symptoms:
  - id: etcd
    title: etcd refused
    files: [build-log.txt, "artifacts/**/build-log.txt", "artifacts/**/junit*.xml", "artifacts/**/e2e-events*.json"]
    match:
      - lines:
          any: [':2379: connect: connection refused']
`)
	junit := `<testsuite name="openshift-tests" tests="1" failures="1">
<testcase name="[sig-etcd] etcd is available"><failure message="etcd unavailable"><![CDATA[
error: dial tcp 10.0.61.116:2379: connect: connection refused
]]></failure></testcase>
</testsuite>`
	late := "I1112 13:00:34.000000 1 x.go:1] dial tcp 10.0.61.114:2379: connect: connection refused\n"
	early := "I1112 12:55:12.000000 1 x.go:1] dial tcp 10.0.61.115:2379: connect: connection refused\n"
	stepLog := "artifacts/e2e/openshift-e2e-test/build-log.txt"
	junitName := "artifacts/e2e/openshift-e2e-test/artifacts/junit/junit_e2e_20261112-120000.xml"
	start := time.Date(2026, 11, 12, 12, 0, 0, 0, time.UTC)
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		name       string
		files      []file
		at, lastAt time.Time
		file       string
		line       int
	}{
		{"undated JUnit body first, the log after",
			[]file{{junitName, junit}, {stepLog, early}},
			at("2026-11-12T12:55:12Z"), at("2026-11-12T12:55:12Z"), stepLog, 1},
		{"the later line's file first",
			[]file{{"build-log.txt", late}, {stepLog, early}},
			at("2026-11-12T12:55:12Z"), at("2026-11-12T13:00:34Z"), stepLog, 1},
		{"the earlier line's file first",
			[]file{{stepLog, early}, {"build-log.txt", late}},
			at("2026-11-12T12:55:12Z"), at("2026-11-12T13:00:34Z"), stepLog, 1},
		{"an interval that ends in 2999 is undated at its end",
			[]file{{"artifacts/e2e/openshift-e2e-test/artifacts/junit/e2e-events_20261112-120000.json", `{"items":[{"level":"Warning","source":"KubeEvent",
  "locator":{"type":"Pod","keys":{"namespace":"openshift-etcd","pod":"etcd-0"}},
  "message":{"reason":"ProbeError","humanMessage":"dial tcp 10.0.61.114:2379: connect: connection refused"},
  "from":"2026-11-12T12:10:00Z","to":"2999-01-01T00:00:00Z"}]}`}},
			at("2026-11-12T12:10:00Z"), at("2026-11-12T12:10:00Z"), "artifacts/e2e/openshift-e2e-test/artifacts/junit/e2e-events_20261112-120000.json", 1},
		{"a line dated three days after the run's start is undated",
			[]file{{"build-log.txt", "I1115 12:30:00.000000 1 x.go:1] dial tcp 10.0.61.114:2379: connect: connection refused\n"}},
			time.Time{}, time.Time{}, "build-log.txt", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, errs := scanFiles(t, e, RunInfo{Start: start}, c.files...)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if len(got) != 1 {
				t.Fatalf("matches %+v, want one", got)
			}
			m := got[0]
			if !m.At.Equal(c.at) || !m.LastAt.Equal(c.lastAt) || m.File != c.file || m.Line != c.line {
				t.Errorf("at %v, last at %v, evidence %s:%d; want %v, %v, %s:%d", m.At, m.LastAt, m.File, m.Line, c.at, c.lastAt, c.file, c.line)
			}
		})
	}
}

// TestOutOfRun: the files whose evidence bore a time the run cannot have
// are listed, each with its first such time, for the caller to record as
// a parse problem; a file dated within the run is not.
func TestOutOfRun(t *testing.T) {
	e := engineFor(t, `symptoms:
  - id: etcd
    title: etcd refused
    files: [build-log.txt, "artifacts/**/build-log.txt"]
    match:
      - lines:
          any: [':2379: connect: connection refused']
`)
	start := time.Date(2026, 11, 12, 12, 0, 0, 0, time.UTC)
	s := e.Begin(RunInfo{Start: start})
	for _, f := range []file{
		{"build-log.txt", "I1112 12:30:00.000000 1 x.go:1] dial tcp 10.0.61.114:2379: connect: connection refused\n"},
		{"artifacts/e2e/gather/build-log.txt", "I1120 09:00:00.000000 1 x.go:1] dial tcp 10.0.61.114:2379: connect: connection refused\n" +
			"I1121 09:00:00.000000 1 x.go:1] dial tcp 10.0.61.115:2379: connect: connection refused\n"},
	} {
		if err := s.File(t.Context(), f.rel, strings.NewReader(f.content)); err != nil {
			t.Fatal(err)
		}
	}
	got := s.OutOfRun()
	want := []TimeProblem{{File: "artifacts/e2e/gather/build-log.txt", At: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)}}
	if len(got) != 1 || got[0].File != want[0].File || !got[0].At.Equal(want[0].At) {
		t.Errorf("out of the run: %+v, want %+v", got, want)
	}
	if m := s.Matches(); len(m) != 1 || m[0].Hits != 3 || !m[0].At.Equal(start.Add(30*time.Minute)) || !m[0].LastAt.Equal(m[0].At) {
		t.Errorf("matches %+v: want 3 hits, dated by the one line within the run", m)
	}
}
