package classify

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/openshift-eng/prowcrawl/prow"
)

// runStart is the start of the synthetic runs: monitor lines of November
// are in 2026.
var runStart = time.Date(2026, 11, 12, 19, 0, 0, 0, time.UTC)

// engineFor builds an engine from a rules document.
func engineFor(t testing.TB, doc string) *Engine {
	t.Helper()
	rules, err := ParseRules("test.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(rules)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// file is one input of a scan.
type file struct {
	rel, content string
}

// scanFiles feeds files to a scan of e and returns the matches and the
// errors of File.
func scanFiles(t testing.TB, e *Engine, info RunInfo, files ...file) ([]Match, []error) {
	t.Helper()
	s := e.Begin(info)
	var errs []error
	for _, f := range files {
		if !e.Wants(f.rel) {
			t.Fatalf("engine does not want %s", f.rel)
		}
		if err := s.File(context.Background(), f.rel, strings.NewReader(f.content)); err != nil {
			errs = append(errs, err)
		}
	}
	return s.Matches(), errs
}

func TestEngineLines(t *testing.T) {
	e := engineFor(t, `
symptoms:
  - id: refused
    title: etcd refused
    files: ['**/*.log', build-log.txt]
    match:
      - lines:
          any: ['dial tcp (?P<ip>[0-9.]+):2379: connect: connection refused']
          cidr: [10.0.0.0/16]
  - id: twice
    title: at least two lines, with all and not
    files: [build-log.txt]
    match:
      - lines:
          any: ['(?i)transport is closing']
          all: [grpc]
          not: [ignored]
          min: 2
  - id: all-only
    title: every one of all
    files: [build-log.txt]
    match:
      - lines: {all: [alpha, beta]}
  - id: crlf
    title: an anchored regex on a CRLF line
    files: [build-log.txt]
    match:
      - lines: {any: ['^done$']}
  - id: no-literal
    title: a regex without a literal runs on every line
    files: [build-log.txt]
    match:
      - lines: {any: ['^[0-9]{3}$']}
`)
	log := strings.Join([]string{
		"I1112 20:00:01.000000 1 x.go:1] dial tcp 10.0.61.114:2379: connect: connection refused", // 1: inside 10.0/16
		"W1112 20:00:02.000000 1 x.go:1] dial tcp 10.1.61.114:2379: connect: connection refused", // 2: outside
		"dial tcp 10.0.61.114:2380: connect: connection refused",                                 // 3: another port
		"grpc: \x1b[31mTransport is closing\x1b[0m",                                              // 4: colours around the match
		"TRANSPORT IS CLOSING (no g r p c)",                                                      // 5: all fails
		"grpc transport is closing ignored",                                                      // 6: not matches
		"grpc transport is closing again",                                                        // 7
		"alpha and beta",                                                                         // 8
		"beta alone",                                                                             // 9
		"done\r",                                                                                 // 10
		"123",                                                                                    // 11
		"1234",                                                                                   // 12
	}, "\n") + "\n"
	got, errs := scanFiles(t, e, RunInfo{Start: runStart}, file{"build-log.txt", log})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []Match{
		{Symptom: "all-only", Hits: 1, File: "build-log.txt", Line: 8, Excerpt: "alpha and beta"},
		{Symptom: "crlf", Hits: 1, File: "build-log.txt", Line: 10, Excerpt: "done"},
		{Symptom: "no-literal", Hits: 1, File: "build-log.txt", Line: 11, Excerpt: "123"},
		{Symptom: "refused", Hits: 1, File: "build-log.txt", Line: 1, Excerpt: "I1112 20:00:01.000000 1 x.go:1] dial tcp 10.0.61.114:2379: connect: connection refused",
			At: time.Date(2026, 11, 12, 20, 0, 1, 0, time.UTC)},
		{Symptom: "twice", Hits: 2, File: "build-log.txt", Line: 4, Excerpt: "grpc: Transport is closing"},
	}
	if !reflect.DeepEqual(firstOnly(got), want) {
		t.Errorf("got\n%s\nwant\n%s", dump(got), dump(want))
	}
}

func dump(ms []Match) string {
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "  %+v\n", m)
	}
	return b.String()
}

func TestEngineLongLinesAndBinary(t *testing.T) {
	e := engineFor(t, `
symptoms:
  - id: needle
    title: a needle
    files: [build-log.txt]
    match:
      - lines: {any: [needle]}
  - id: tail
    title: only in the skipped part of a long line
    files: [build-log.txt]
    match:
      - lines: {any: [tail-marker]}
`)
	long := "needle " + strings.Repeat("x", 200<<10) + " tail-marker"
	binary := "\x00\x01\xff\xfe needle \x00 in a blob\x00"
	tests := []struct {
		name, content string
		want          []Match
	}{
		{"long line counts once and is cut", "a\n" + long + "\nneedle again\n",
			[]Match{{Symptom: "needle", Hits: 2, File: "build-log.txt", Line: 2, Excerpt: "needle " + strings.Repeat("x", MaxExcerpt-len("needle "))}}},
		{"long last line without newline", "a\n" + long,
			[]Match{{Symptom: "needle", Hits: 1, File: "build-log.txt", Line: 2, Excerpt: "needle " + strings.Repeat("x", MaxExcerpt-len("needle "))}}},
		{"line numbers after a long line", long + "\n" + long + "\nb\nneedle\n",
			[]Match{{Symptom: "needle", Hits: 3, File: "build-log.txt", Line: 1, Excerpt: "needle " + strings.Repeat("x", MaxExcerpt-len("needle "))}}},
		{"the matched part ends at 64 KiB", strings.Repeat("y", maxLine-len("needle")) + "needle" + "\n" + strings.Repeat("y", maxLine-len("needle")+1) + "needle\n",
			[]Match{{Symptom: "needle", Hits: 1, File: "build-log.txt", Line: 1, Excerpt: strings.Repeat("y", MaxExcerpt)}}},
		{"binary blob", binary + "\n" + strings.Repeat("\x00", 1000),
			[]Match{{Symptom: "needle", Hits: 1, File: "build-log.txt", Line: 1, Excerpt: "\ufffd\ufffd\ufffd needle \ufffd in a blob\ufffd"}}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := scanFiles(t, e, RunInfo{}, file{"build-log.txt", tt.content})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%s\nwant\n%s", dump(got), dump(tt.want))
			}
		})
	}
}

// TestEngineChunks feeds a file in pieces of every size, across the chunk
// boundaries of the reader, and expects the same answer.
func TestEngineChunks(t *testing.T) {
	e := engineFor(t, `
symptoms:
  - id: needle
    title: a needle
    files: [build-log.txt]
    match:
      - lines: {any: [needle]}
`)
	var b strings.Builder
	for i := range 40000 {
		if i%997 == 0 {
			fmt.Fprintf(&b, "line %d has a needle\n", i)
		} else if i%5003 == 0 {
			b.WriteString(strings.Repeat("z", 70000) + " needle\n")
		} else {
			fmt.Fprintf(&b, "line %d is hay \x1b[1mbold\x1b[0m\r\n", i)
		}
	}
	content := b.String()
	want, _ := scanFiles(t, e, RunInfo{}, file{"build-log.txt", content})
	if len(want) != 1 || want[0].Hits != 41 || want[0].Line != 1 {
		t.Fatalf("got %s", dump(want))
	}
	for _, wrap := range []func(*strings.Reader) any{
		func(r *strings.Reader) any { return iotest.HalfReader(r) },
		func(r *strings.Reader) any { return iotest.DataErrReader(r) },
	} {
		s := e.Begin(RunInfo{})
		r := wrap(strings.NewReader(content)).(interface{ Read([]byte) (int, error) })
		if err := s.File(context.Background(), "build-log.txt", r); err != nil {
			t.Fatal(err)
		}
		if got := s.Matches(); !reflect.DeepEqual(got, want) {
			t.Errorf("got %s, want %s", dump(got), dump(want))
		}
	}
}

func TestEngineSequence(t *testing.T) {
	e := engineFor(t, `
symptoms:
  - id: ns
    title: sdn then readiness elsewhere
    files: [build-log.txt, 'e2e-events*.json']
    match:
      - sequence:
          first: 'ns/openshift-sdn .*Killing'
          then: 'Readiness probe failed'
          within: 30s
          different: namespace
  - id: node
    title: on another node
    files: [build-log.txt]
    match:
      - sequence: {first: 'reason/Drain', then: 'NotReady', within: 1m, different: node}
  - id: any
    title: no constraint
    files: [klog.log]
    match:
      - sequence: {first: 'leader lost', then: 'leader elected', within: 5s}
`)
	log := strings.Join([]string{
		"Nov 12 20:58:40.000 I ns/openshift-sdn pod/sdn-1 node/n1 reason/Killing Stopping container sdn",  // 1
		"Nov 12 20:58:45.000 W ns/openshift-sdn pod/sdn-2 node/n1 Readiness probe failed: same namespace", // 2: no pair
		"Nov 12 20:59:15.000 W ns/openshift-apiserver pod/a node/n2 Readiness probe failed: too late",     // 3: 35 s after
		"Nov 12 21:00:00.000 I ns/openshift-sdn pod/sdn-3 node/n1 reason/Killing Stopping container sdn",  // 4
		"Nov 12 21:00:01.000 I ns/openshift-sdn pod/sdn-4 node/n2 reason/Killing Stopping container sdn",  // 5
		"not a timed line: ns/openshift-apiserver Readiness probe failed",                                 // 6
		"Nov 12 21:00:20.500 W ns/openshift-apiserver pod/b node/n3 Readiness probe failed: two pairs",    // 7
		"Nov 12 21:01:00.000 I node/n1 reason/Drain roles/worker Draining node",                           // 8
		"Nov 12 21:01:10.000 W node/n1 reason/NotReady roles/worker same node",                            // 9
		"Nov 12 21:01:20.000 W node/n2 reason/NotReady roles/worker other node",                           // 10
		"Nov 12 21:01:30.000 W reason/NotReady no node",                                                   // 11
	}, "\n") + "\n"
	klog := "I1112 21:00:00.000000 1 x.go:1] leader lost\nI1112 21:00:04.999999 1 x.go:1] leader elected\nI1112 21:00:20.000000 1 x.go:1] leader elected\n"
	got, errs := scanFiles(t, e, RunInfo{Start: runStart}, file{"build-log.txt", log}, file{"klog.log", klog})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []Match{
		{Symptom: "any", Hits: 1, File: "klog.log", Line: 1, Excerpt: "I1112 21:00:00.000000 1 x.go:1] leader lost ⏎ I1112 21:00:04.999999 1 x.go:1] leader elected",
			At: time.Date(2026, 11, 12, 21, 0, 0, 0, time.UTC)},
		{Symptom: "node", Hits: 1, File: "build-log.txt", Line: 8, Excerpt: "Nov 12 21:01:00.000 I node/n1 reason/Drain roles/worker Draining node ⏎ Nov 12 21:01:20.000 W node/n2 reason/NotReady roles/worker other node",
			At: time.Date(2026, 11, 12, 21, 1, 0, 0, time.UTC)},
		{Symptom: "ns", Hits: 2, File: "build-log.txt", Line: 4, Excerpt: "Nov 12 21:00:00.000 I ns/openshift-sdn pod/sdn-3 node/n1 reason/Killing Stopping container sdn ⏎ Nov 12 21:00:20.500 W ns/openshift-apiserver pod/b node/n3 Readiness probe failed: two pairs",
			At: time.Date(2026, 11, 12, 21, 0, 0, 0, time.UTC)},
	}
	if !reflect.DeepEqual(firstOnly(got), want) {
		t.Errorf("got\n%s\nwant\n%s", dump(got), dump(want))
	}

	// The same sequence in an events file, where the times and namespaces
	// come from the items.
	events := `{"items":[
{"level":"Info","locator":{"type":"Pod","keys":{"namespace":"openshift-sdn","pod":"sdn-1","node":"n1"}},"message":{"reason":"Killing","humanMessage":"Killing container"},"from":"2026-11-12T21:00:00Z","to":"2026-11-12T21:00:00Z"},
{"level":"Warning","locator":{"type":"Pod","keys":{"namespace":"openshift-apiserver","pod":"a","node":"n2"}},"message":{"reason":"ReadinessFailed","humanMessage":"Readiness probe failed: 500"},"from":"2026-11-12T21:00:10Z","to":"2026-11-12T21:00:10Z"}]}`
	got, errs = scanFiles(t, e, RunInfo{Start: runStart}, file{"e2e-events_20261112.json", events})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want = []Match{{Symptom: "ns", Hits: 1, File: "e2e-events_20261112.json", Line: 1,
		Excerpt: "ns/openshift-sdn node/n1 pod/sdn-1 reason/Killing Killing container ⏎ ns/openshift-apiserver node/n2 pod/a reason/ReadinessFailed Readiness probe failed: 500",
		At:      time.Date(2026, 11, 12, 21, 0, 0, 0, time.UTC)}}
	if !reflect.DeepEqual(firstOnly(got), want) {
		t.Errorf("events: got\n%s\nwant\n%s", dump(got), dump(want))
	}
}

// TestEngineSequenceWindow checks that a burst of "first" events keeps only
// the newest in memory and still pairs.
func TestEngineSequenceWindow(t *testing.T) {
	e := engineFor(t, `
symptoms:
  - id: s
    title: s
    files: [build-log.txt]
    match:
      - sequence: {first: start, then: end, within: 1h}
`)
	var b strings.Builder
	at := runStart
	for range 10 * maxWindow {
		at = at.Add(time.Millisecond)
		fmt.Fprintf(&b, "%s start\n", at.Format(time.RFC3339Nano))
	}
	fmt.Fprintf(&b, "%s end\n", at.Format(time.RFC3339Nano))
	s := e.Begin(RunInfo{Start: runStart})
	if err := s.File(context.Background(), "build-log.txt", strings.NewReader(b.String())); err != nil {
		t.Fatal(err)
	}
	m := s.Matches()
	if len(m) != 1 || m[0].Hits != maxWindow {
		t.Fatalf("got %s, want %d pairs", dump(m), maxWindow)
	}
	if w := s.wins[s.e.matchers[0].id]; cap(w.firsts) > 4*maxWindow {
		t.Errorf("window grew to %d", cap(w.firsts))
	}
}

func TestEngineEvents(t *testing.T) {
	e := engineFor(t, `
symptoms:
  - id: disruption-began
    title: pod-to-pod disruption
    files: ['**/e2e-events*.json', '**/e2e-timelines*.json']
    match:
      - events: {reason: '^DisruptionBegan$', locator: 'disruption/pod-to-pod', min: 2}
  - id: cni
    title: cni lines in events
    files: ['**/e2e-events*.json']
    match:
      - lines: {any: ['NetworkPluginNotReady']}
`)
	events := `{"items":[
{"level":"Warning","locator":"ns/openshift-dns pod/dns-1 node/n1","message":"reason/NetworkNotReady network is not ready: NetworkReady=false reason:NetworkPluginNotReady\nmessage:Missing CNI default network","from":"2026-11-12T20:58:46Z","to":"2026-11-12T20:58:46Z"},
{"level":"Error","source":"Disruption","locator":{"type":"Disruption","keys":{"backend-disruption-name":"pod-to-pod-new-connections","disruption":"pod-to-pod"}},"message":{"reason":"DisruptionBegan","humanMessage":"stopped responding"},"from":"2026-11-12T20:59:00Z","to":"2026-11-12T20:59:02Z"},
{"level":"Error","source":"Disruption","locator":{"type":"Disruption","keys":{"disruption":"kube-api"}},"message":{"reason":"DisruptionBegan","humanMessage":"stopped responding"},"from":"2026-11-12T20:59:00Z","to":"2026-11-12T20:59:02Z"},
{"level":"Error","source":"Disruption","locator":{"type":"Disruption","keys":{"disruption":"pod-to-pod"}},"message":{"reason":"DisruptionBegan","humanMessage":"again"},"from":"2026-11-12T21:00:00Z","to":"2026-11-12T21:00:02Z"}]}`
	got, errs := scanFiles(t, e, RunInfo{Start: runStart}, file{"artifacts/e/junit/e2e-events_1.json", events})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []Match{
		{Symptom: "cni", Hits: 1, File: "artifacts/e/junit/e2e-events_1.json", Line: 1,
			Excerpt: `ns/openshift-dns pod/dns-1 node/n1 reason/NetworkNotReady network is not ready: NetworkReady=false reason:NetworkPluginNotReady\nmessage:Missing CNI default network`,
			At:      time.Date(2026, 11, 12, 20, 58, 46, 0, time.UTC)},
		{Symptom: "disruption-began", Hits: 2, File: "artifacts/e/junit/e2e-events_1.json", Line: 2,
			Excerpt: "backend-disruption-name/pod-to-pod-new-connections disruption/pod-to-pod reason/DisruptionBegan stopped responding",
			At:      time.Date(2026, 11, 12, 20, 59, 0, 0, time.UTC)},
	}
	if !reflect.DeepEqual(firstOnly(got), want) {
		t.Errorf("got\n%s\nwant\n%s", dump(got), dump(want))
	}

	// A malformed item: the error is returned, and the matches before it
	// count.
	broken := events[:strings.LastIndex(events, `{"level"`)] + `{"locator": 7}]}`
	got, errs = scanFiles(t, e, RunInfo{Start: runStart}, file{"artifacts/e/junit/e2e-timelines_spyglass_1.json", broken})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "item 3") {
		t.Fatalf("errors %v", errs)
	}
	if len(got) != 0 {
		t.Errorf("one disruption is below min 2, got %s", dump(got))
	}
	got, _ = scanFiles(t, e, RunInfo{Start: runStart}, file{"artifacts/e/junit/e2e-events_1.json", broken})
	if len(got) != 1 || got[0].Symptom != "cni" {
		t.Errorf("matches before the bad item: %s", dump(got))
	}
}

func TestEngineDisruptionJUnitUpgrade(t *testing.T) {
	e := engineFor(t, `
symptoms:
  - id: pod-network
    title: pod network disruption
    files: ['**/backend-disruption*.json']
    match:
      - disruption: {backend: '^(pod-to-pod|host-to-pod)$'}
  - id: long-api
    title: API down for long
    files: ['**/backend-disruption*.json']
    match:
      - disruption: {backend: kube-api, min: 5s}
  - id: api-test
    title: API test failed
    files: [build-log.txt]
    match:
      - junit: {name: 'APIs remain available'}
      - junit: {name: 'Cluster completes upgrade', status: [fail, flake]}
  - id: partial
    title: upgrade incomplete
    files: [build-log.txt]
    match:
      - upgrade: {state: Partial}
`)
	doc := `{"BackendDisruptions":{
"pod-to-pod-new-connections":{"Name":"pod-to-pod-new-connections","BackendName":"pod-to-pod","ConnectionType":"New","DisruptedDuration":"2s",
  "DisruptionMessages":["Nov 12 20:58:46.230 - 2s    E disruption/pod-to-pod connection/new stopped responding"]},
"host-to-pod-new-connections":{"Name":"host-to-pod-new-connections","BackendName":"host-to-pod","DisruptedDuration":"0s","DisruptionMessages":null},
"kube-api-new-connections":{"Name":"kube-api-new-connections","BackendName":"kube-api","DisruptedDuration":"4s","DisruptionMessages":null}}}`
	info := RunInfo{Start: runStart, UpgradeState: "Partial", Tests: []prow.TestResult{
		{Name: "[sig-api-machinery] Kubernetes APIs remain available for new connections", Status: prow.StatusFail, Message: "API was unreachable for 12s\nmore"},
		{Name: "[sig-api-machinery] OpenShift APIs remain available for new connections", Status: prow.StatusFlake},
		{Name: "[sig-cluster-lifecycle] Cluster completes upgrade", Status: prow.StatusFlake},
		{Name: "[sig-api-machinery] OAuth APIs remain available", Status: prow.StatusPass},
	}}
	got, errs := scanFiles(t, e, info, file{"artifacts/x/backend-disruption_1.json", doc})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []Match{
		{Symptom: "api-test", Hits: 2, Excerpt: "[sig-api-machinery] Kubernetes APIs remain available for new connections: API was unreachable for 12s"},
		{Symptom: "partial", Hits: 1, Excerpt: "clusterversion history[0].state = Partial"},
		{Symptom: "pod-network", Hits: 1, File: "artifacts/x/backend-disruption_1.json",
			Excerpt: "pod-to-pod-new-connections disrupted for 2s: Nov 12 20:58:46.230 - 2s    E disruption/pod-to-pod connection/new stopped responding",
			At:      time.Date(2026, 11, 12, 20, 58, 46, 230e6, time.UTC)},
	}
	if !reflect.DeepEqual(firstOnly(got), want) {
		t.Errorf("got\n%s\nwant\n%s", dump(got), dump(want))
	}
	_, errs = scanFiles(t, e, info, file{"artifacts/x/backend-disruption_2.json", `{"BackendDisruptions":{"a":{"DisruptedDuration":"x"}}}`})
	if len(errs) != 1 {
		t.Errorf("bad duration: %v", errs)
	}
}

func TestEngineFilesAndOrder(t *testing.T) {
	e := engineFor(t, `
symptoms:
  - id: b-pods
    title: in pod logs only
    files: ['artifacts/*/pods/*.log']
    match:
      - lines: {any: [needle]}
  - id: a-both
    title: anywhere
    files: ['artifacts/*/pods/*.log', build-log.txt]
    match:
      - lines: {any: [needle]}
      - lines: {any: [pin]}
`)
	for rel, want := range map[string]bool{"build-log.txt": true, "artifacts/e/pods/x.log": true, "artifacts/e/pods/x.txt": false, "artifacts/e/f/pods/x.log": false} {
		if e.Wants(rel) != want {
			t.Errorf("Wants(%q) = %v", rel, !want)
		}
	}
	got, _ := scanFiles(t, e, RunInfo{},
		file{"artifacts/e/pods/x.log", "hay\npin\n"},
		file{"build-log.txt", "needle\nneedle\n"},
		file{"artifacts/e/pods/y.log", "needle\n"})
	want := []Match{
		// Two entries matched: their hits add up; the first evidence is
		// that of the first file fed.
		{Symptom: "a-both", Hits: 4, File: "artifacts/e/pods/x.log", Line: 2, Excerpt: "pin"},
		{Symptom: "b-pods", Hits: 1, File: "artifacts/e/pods/y.log", Line: 1, Excerpt: "needle"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", dump(got), dump(want))
	}
	// A file no rule reads is not read.
	s := e.Begin(RunInfo{})
	if err := s.File(context.Background(), "other.txt", iotest.ErrReader(errors.New("read"))); err != nil {
		t.Errorf("unwanted file read: %v", err)
	}
}

func TestEngineGzipContextAndErrors(t *testing.T) {
	e := engineFor(t, `
symptoms:
  - id: needle
    title: needle
    files: ['*.log', '*.log.gz']
    match:
      - lines: {any: [needle]}
`)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("hay\nneedle\n"))
	zw.Close()
	s := e.Begin(RunInfo{})
	if err := s.File(context.Background(), "a.log.gz", bytes.NewReader(gz.Bytes())); err != nil {
		t.Fatal(err)
	}
	if m := s.Matches(); len(m) != 1 || m[0].Line != 2 {
		t.Errorf("gzip: %s", dump(m))
	}
	// Truncated gzip: an error, and what came before counts.
	s = e.Begin(RunInfo{})
	if err := s.File(context.Background(), "a.log.gz", bytes.NewReader(gz.Bytes()[:gz.Len()-6])); err == nil {
		t.Errorf("truncated gzip: no error")
	}
	if m := s.Matches(); len(m) != 1 {
		t.Errorf("truncated gzip: %s", dump(m))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := e.Begin(RunInfo{}).File(ctx, "a.log", strings.NewReader("needle\n")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	boom := errors.New("boom")
	s = e.Begin(RunInfo{})
	err := s.File(context.Background(), "a.log", iotest.TimeoutReader(strings.NewReader("needle\n"+strings.Repeat("x", chunkSize*2))))
	if err == nil || len(s.Matches()) != 0 && s.Matches()[0].Hits != 1 {
		t.Errorf("read error: %v %s", err, dump(s.Matches()))
	}
	if err := e.Begin(RunInfo{}).File(context.Background(), "a.log", iotest.ErrReader(boom)); !errors.Is(err, boom) {
		t.Errorf("read error: %v", err)
	}
}

func TestEngineUndated(t *testing.T) {
	e := engineFor(t, `
symptoms:
  - id: a
    title: a
    files: [x.log]
    match:
      - lines: {any: [needle]}
  - id: b
    title: b
    files: [x.log]
    match:
      - lines: {any: [pin]}
`)
	got, _ := scanFiles(t, e, RunInfo{}, file{"x.log", "Nov 12 20:58:46.230 I needle\n2026-11-12T20:58:47Z pin\n"})
	if got[0].Symptom != "a" || !got[0].At.IsZero() {
		t.Errorf("monitor line without a run start: At %v", got[0].At)
	}
	if got[1].Symptom != "b" || !got[1].At.Equal(time.Date(2026, 11, 12, 20, 58, 47, 0, time.UTC)) {
		t.Errorf("RFC 3339 line: At %v", got[1].At)
	}
}

// TestEngineConcurrentScans runs scans of one engine at once, for the race
// detector, with files of several sets of rules so that programs are built
// concurrently.
func TestEngineConcurrentScans(t *testing.T) {
	e, err := NewEngine(Builtin())
	if err != nil {
		t.Fatal(err)
	}
	files := []file{
		{"build-log.txt", "I0902 08:18:41.941578 1 x.go:1] dial tcp 10.0.61.114:2379: connect: connection refused\n"},
		{"artifacts/e/openshift-e2e-test/build-log.txt", "desc = \"transport is closing\"\n"},
		{"artifacts/e/gather-extra/artifacts/pods/openshift-etcd_etcd.log", "transport is closing\n"},
	}
	var wg sync.WaitGroup
	results := make([][]Match, 8)
	for i := range results {
		wg.Go(func() {
			s := e.Begin(RunInfo{Start: runStart})
			for _, f := range files {
				if err := s.File(context.Background(), f.rel, strings.NewReader(f.content)); err != nil {
					t.Error(err)
				}
			}
			results[i] = s.Matches()
		})
	}
	wg.Wait()
	for _, r := range results[1:] {
		if !reflect.DeepEqual(r, results[0]) {
			t.Fatalf("scans differ: %s / %s", dump(r), dump(results[0]))
		}
	}
	if len(results[0]) != 2 {
		t.Errorf("got %s", dump(results[0]))
	}
}

// TestEngineLiteralBudget checks that rules with more literal text than
// one automaton holds still match: the probes past the budget run on every
// line.
func TestEngineLiteralBudget(t *testing.T) {
	var any []string
	for i := range 40 {
		any = append(any, fmt.Sprintf("%d-%s", i, strings.Repeat("w", 2000)))
	}
	e, err := NewEngine([]Rule{{ID: "big", Title: "big", Files: []string{"x.log"}, Match: []Matcher{{Lines: &LinesMatcher{Any: any}}}}})
	if err != nil {
		t.Fatal(err)
	}
	p := e.programFor(fileText, []bool{true})
	if len(p.always) == 0 || len(p.always) == len(p.probes) {
		t.Fatalf("%d of %d probes run always", len(p.always), len(p.probes))
	}
	content := "1-" + strings.Repeat("w", 2000) + "\nhay\n39-" + strings.Repeat("w", 2000) + "\n"
	got, _ := scanFiles(t, e, RunInfo{}, file{"x.log", content})
	if len(got) != 1 || got[0].Hits != 2 {
		t.Errorf("got %s", dump(got))
	}
}

func TestLiteralSuffix(t *testing.T) {
	for glob, want := range map[string]string{
		"artifacts/**/junit*.xml":                 ".xml",
		"artifacts/*/pods/*{apiserver,etcd}*.log": ".log",
		"build-log.txt":                           "build-log.txt",
		"logs/x.{log,txt}":                        "",
		"a/b[0-9]":                                "",
		`odd\*name.log`:                           "name.log",
		`a*b\.log`:                                ".log",
		"artifacts/**/gather-extra/clusterversion.json": "/gather-extra/clusterversion.json",
	} {
		if got := literalSuffix(glob); got != want {
			t.Errorf("literalSuffix(%q) = %q, want %q", glob, got, want)
		}
	}
}

// TestFileAtAnyOrder: the files of a sample run given with FileAt in
// reverse order, and the tests and upgrade state given after them with
// SetRun, find the same symptoms with the same evidence as the files given
// in order with everything known at Begin.
func TestFileAtAnyOrder(t *testing.T) {
	e, err := NewEngine(Builtin())
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := filepath.Glob("../testdata/bucket/logs/*/*")
	tests := []prow.TestResult{
		{Name: "[sig-api-machinery] Kubernetes APIs remain available for new connections", Status: prow.StatusFail, Message: "API was unreachable during upgrade for at least 2m"},
		{Name: "[sig-network] pods should be reachable", Status: prow.StatusPass},
	}
	compared, found := 0, 0
	for _, dir := range runs {
		var files []file
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			rel = filepath.ToSlash(rel)
			if e.Wants(rel) {
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				files = append(files, file{rel, string(b)})
			}
			return nil
		})
		if len(files) < 2 {
			continue
		}
		start := time.Date(2023, 9, 1, 0, 0, 0, 0, time.UTC)
		want, _ := scanFiles(t, e, RunInfo{Start: start, Tests: tests, UpgradeState: "Partial"}, files...)
		s := e.Begin(RunInfo{Start: start})
		for i := len(files) - 1; i >= 0; i-- {
			if err := s.FileAt(t.Context(), files[i].rel, i+1, strings.NewReader(files[i].content)); err != nil {
				t.Fatalf("%s: %v", files[i].rel, err)
			}
		}
		s.SetRun(tests, "Partial")
		got := s.Matches()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: in reverse with FileAt and SetRun:\n%+v\nin order:\n%+v", dir, got, want)
		}
		compared++
		found += len(want)
	}
	if compared < 20 || found < compared {
		t.Fatalf("compared %d runs with %d matches; the sample bucket should give more", compared, found)
	}
}
