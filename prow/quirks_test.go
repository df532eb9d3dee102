package prow

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// The fixtures testdata/quirk_* reproduce, in files of our own, what real
// artifacts do that a tidy sample does not:
//
//   - quirk_nameless.xml: testcases without a name attribute, as in
//     kubernetes/test-infra kettle/testdata/malformed_no_testcase_name.xml;
//   - quirk_residue.xml: a failure message written twice, a coloured copy
//     in the attribute whose ESC bytes Go's encoding/xml replaced by U+FFFD
//     ("\uFFFD[1m") and the plain text with a stack in the body, as in
//     openshift/origin pkg/test/junit_upgrade_1674689374.xml;
//   - quirk_cdata_control.xml: raw control bytes inside CDATA, which XML
//     forbids even there;
//   - quirk_duplicate_keys.json: interval items with "locator" and
//     "message" twice, the legacy string and then the structured object,
//     as in openshift/origin pkg/monitortests/node/nodestateanalyzer/
//     nodeTest/drain-01/startingEvents.json.

func parseFixture(t *testing.T, name string) ([]TestCase, error) {
	t.Helper()
	return ParseJUnit(bytes.NewReader(readTestdata(t, name)))
}

// TestQuirkNamelessCases: nameless cases are counted, kept apart and keep
// their own status and duration; named ones merge as always.
func TestQuirkNamelessCases(t *testing.T) {
	cases, err := parseFixture(t, "quirk_nameless.xml")
	if !errors.Is(err, ErrNamelessCases) || !strings.Contains(err.Error(), "3 test cases without a name") {
		t.Errorf("err = %v, want it to count 3 nameless cases", err)
	}
	if len(cases) != 7 {
		t.Fatalf("%d cases, want all 7 of the file", len(cases))
	}
	got := make(map[string]TestResult)
	for _, r := range MergeTests(cases) {
		got[r.Name] = r
	}
	want := map[string]struct {
		status   TestStatus
		duration float64
	}{
		"(no name #1)":                    {StatusPass, 41.07},
		"(no name #2)":                    {StatusFail, 7.5e-05},
		"(no name #3)":                    {StatusPass, 163.3},
		"Run multi-stage test test phase": {StatusFail, 3912.87},
		"Run multi-stage test post phase": {StatusFlake, 205.1},
	}
	for name, w := range want {
		r, ok := got[name]
		if !ok || r.Status != w.status || r.Duration != w.duration {
			t.Errorf("%q = %+v (found %v), want status %s and duration %v", name, r, ok, w.status, w.duration)
		}
	}
	if len(got) != 6 {
		t.Errorf("%d tests after merging, want 6: %v", len(got), got)
	}
	if r := got["(no name #2)"]; r.Message != "could not gather must-gather: context deadline exceeded" {
		t.Errorf("nameless failure's message = %q", r.Message)
	}
}

// TestQuirkMessageOnce: a message in the attribute and again in the body
// is kept once, without colour codes or what is left of them, and a second
// failure element with the same text adds nothing.
func TestQuirkMessageOnce(t *testing.T) {
	cases, err := parseFixture(t, "quirk_residue.xml")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 3 {
		t.Fatalf("%d cases, want 3", len(cases))
	}
	panicked := cases[0].Message
	if !strings.HasPrefix(panicked, "Your Test Panicked\ngithub.com/openshift/origin/test/extended/prometheus/upgrade.go:58\n") ||
		!strings.Contains(panicked, "goroutine 311 [running]:") {
		t.Errorf("message %q: want the body, stack included", panicked)
	}
	for _, c := range cases[:2] {
		if strings.Contains(c.Message, "\uFFFD") || strings.Contains(c.Message, "[0m") || strings.Contains(c.Message, "\x1b") {
			t.Errorf("%s: colour residue in %q", c.Name, c.Message)
		}
		if n := strings.Count(c.Message, "Learn more at:") + strings.Count(c.Message, "alert KubePodNotReady pending"); n != 1 {
			t.Errorf("%s: the text is kept %d times: %q", c.Name, n, c.Message)
		}
	}
	if want := `labels: {namespace="openshift-etcd", pod="etcd-guard-ip-10-0-61-114", severity="warning"}`; !strings.HasSuffix(cases[1].Message, want) {
		t.Errorf("alert message %q, want it to end with %q", cases[1].Message, want)
	}
	// U+FFFD followed by something that is no colour code is text.
	if want := "decoded \uFFFD[not-a-colour] and \uFFFD[12;31 stays"; cases[2].Message != want {
		t.Errorf("message %q, want %q", cases[2].Message, want)
	}
}

// TestQuirkControlBytesInCDATA: control bytes inside CDATA do not cost
// the file: it parses, and the text keeps everything but them.
func TestQuirkControlBytesInCDATA(t *testing.T) {
	cases, err := parseFixture(t, "quirk_cdata_control.xml")
	if err != nil {
		t.Fatalf("a file with control bytes in CDATA: %v", err)
	}
	if len(cases) != 2 || cases[0].Status != StatusFail || cases[1].Status != StatusPass || cases[1].Duration != 2.25 {
		t.Fatalf("cases %+v", cases)
	}
	want := "Nov 18 03:11:02.941: pod did not terminate within 30s\n  STEP: collecting events done\npage break and a vertical tab here"
	if cases[0].Message != want {
		t.Errorf("message %q,\nwant %q", cases[0].Message, want)
	}
}

// TestQuirkDuplicateKeys: of a key given twice, the structured value wins,
// as the last one does for encoding/json (which origin reads these files
// with); the legacy string it replaced still names what the structured form
// leaves out, here the namespace.
func TestQuirkDuplicateKeys(t *testing.T) {
	evs, err := collectEvents(string(readTestdata(t, "quirk_duplicate_keys.json")))
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 {
		t.Fatalf("%d events, want 3", len(evs))
	}
	const node = "ip-10-0-92-17.us-west-2.compute.internal"
	tests := []struct {
		locator, message, reason, namespace, node string
	}{
		{"node/" + node + " hmsg/9c1e04ab51", "Draining node to update config.", "Drain", "openshift-machine-config-operator", node},
		{"ns/openshift-ovn-kubernetes node/" + node + " pod/ovnkube-node-7xq2p", "Stopping container ovnkube-controller", "Killing", "openshift-ovn-kubernetes", node},
		{"ns/e2e-k8s-sig-apps-daemonset-upgrade-8812 pod/ds1-rb6mw", "reason/ReadinessFailed Readiness probe failed", "ReadinessFailed", "e2e-k8s-sig-apps-daemonset-upgrade-8812", ""},
	}
	for i, w := range tests {
		e := evs[i]
		if e.Locator != w.locator || e.Message != w.message || e.Reason != w.reason || e.Namespace != w.namespace || e.Node != w.node {
			t.Errorf("event %d = %+v,\nwant locator %q, message %q, reason %q, namespace %q, node %q", i, e, w.locator, w.message, w.reason, w.namespace, w.node)
		}
	}
}
