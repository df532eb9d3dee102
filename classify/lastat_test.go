package classify

import (
	"testing"
	"time"
)

// firstOnly is ms without LastAt, for the tests written before it: they
// check the first evidence.
func firstOnly(ms []Match) []Match {
	out := make([]Match, len(ms))
	for i, m := range ms {
		m.LastAt = time.Time{}
		out[i] = m
	}
	return out
}

// TestLastAt spreads one symptom's evidence over a build log, an events
// file and a JUnit file: At is the first evidence's time, LastAt the
// latest of all (the end of an interval for an event). A symptom whose
// evidence has no time leaves both zero.
func TestLastAt(t *testing.T) {
	e := engineFor(t, `symptoms:
  - id: etcd
    title: etcd refused
    files: [build-log.txt, "artifacts/**/e2e-events*.json", "artifacts/**/junit*.xml"]
    match:
      - lines:
          any: [':2379: connect: connection refused']
  - id: undated
    title: no time on any line
    files: [build-log.txt, "artifacts/**/junit*.xml"]
    match:
      - lines:
          any: ['transport is closing']
`)
	log := "I1112 20:00:01.000000 1 x.go:1] dial tcp 10.0.61.114:2379: connect: connection refused\n" +
		"grpc: transport is closing\n" +
		"I1112 20:05:00.000000 1 x.go:1] dial tcp 10.0.61.115:2379: connect: connection refused\n"
	events := `{"items":[{"level":"Warning","source":"KubeEvent","locator":{"type":"Pod","keys":{"namespace":"openshift-etcd","pod":"etcd-0"}},
	  "message":{"reason":"ProbeError","humanMessage":"Get \"https://10.0.61.114:2379/health\": dial tcp 10.0.61.114:2379: connect: connection refused"},
	  "from":"2026-11-12T20:10:00Z","to":"2026-11-12T20:10:05Z"}]}`
	junit := `<testsuite name="openshift-tests" tests="1" failures="1">
<testcase name="[sig-etcd] etcd is available"><failure message="etcd unavailable"><![CDATA[
Nov 12 20:30:00.000 E ns/openshift-etcd pod/etcd-1 dial tcp 10.0.61.116:2379: connect: connection refused
grpc: transport is closing
]]></failure></testcase>
</testsuite>`
	got, errs := scanFiles(t, e, RunInfo{Start: runStart},
		file{"build-log.txt", log},
		file{"artifacts/e2e/openshift-e2e-test/artifacts/junit/e2e-events_20261112-200000.json", events},
		file{"artifacts/e2e/openshift-e2e-test/artifacts/junit/junit_e2e_20261112-200000.xml", junit})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(got) != 2 {
		t.Fatalf("matches %+v, want etcd and undated", got)
	}
	etcd, undated := got[0], got[1]
	if want := time.Date(2026, 11, 12, 20, 0, 1, 0, time.UTC); !etcd.At.Equal(want) {
		t.Errorf("etcd At = %v, want %v (the log's first line)", etcd.At, want)
	}
	if want := time.Date(2026, 11, 12, 20, 30, 0, 0, time.UTC); !etcd.LastAt.Equal(want) {
		t.Errorf("etcd LastAt = %v, want %v (the JUnit file's monitor line)", etcd.LastAt, want)
	}
	if etcd.Hits != 4 {
		t.Errorf("etcd hits = %d, want 4 (two log lines, one event, one JUnit line)", etcd.Hits)
	}
	if !undated.At.IsZero() || !undated.LastAt.IsZero() || undated.Hits != 2 {
		t.Errorf("undated = %+v, want two hits and no times", undated)
	}

	// Without the JUnit file, the event's end is the last evidence.
	got, _ = scanFiles(t, e, RunInfo{Start: runStart}, file{"build-log.txt", log},
		file{"artifacts/e2e/openshift-e2e-test/artifacts/junit/e2e-events_20261112-200000.json", events})
	if want := time.Date(2026, 11, 12, 20, 10, 5, 0, time.UTC); !got[0].LastAt.Equal(want) {
		t.Errorf("etcd LastAt without JUnit = %v, want %v (the event's end)", got[0].LastAt, want)
	}
}
