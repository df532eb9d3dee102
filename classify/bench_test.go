package classify

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var benchInput = flag.String("benchinput", "", "write the benchmarks' logs and the patterns of ripgrep and grep to this directory (see TestWriteBenchInput)")

// benchLog returns a realistic build log of about size bytes: monitor
// lines, klog lines, ci-operator and openshift-tests lines, with a few
// planted hits of each symptom and many near misses. It is the same for a
// given size.
func benchLog(size int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	namespaces := []string{"openshift-kube-apiserver", "openshift-etcd", "openshift-sdn", "openshift-ovn-kubernetes", "openshift-apiserver",
		"openshift-authentication", "openshift-monitoring", "openshift-machine-config-operator", "openshift-dns", "openshift-ingress"}
	reasons := []string{"reason/Killing Stopping container %s", "reason/Pulling image \"quay.io/openshift/%s@sha256:4f5e\"", "reason/Started Started container %s",
		"reason/Created Created container %s", "reason/Scheduled node/ip-10-0-1-2 reason/Scheduled", "reason/BackOff Back-off restarting failed container %s",
		"reason/Unhealthy Liveness probe failed: Get \"https://10.0.%d.5:10257/healthz\": dial tcp 10.0.1.5:10257: connect: connection refused",
		"reason/ProbeError Readiness probe error: HTTP probe failed with statuscode: 500 body: [+]ping ok %s"}
	klog := []string{
		"reflector.go:424] k8s.io/client-go/informers/factory.go:150: failed to list *v1.Pod: Get \"https://api.ci-op.example.com:6443/api/v1/pods?limit=500\": dial tcp 10.0.%d.5:6443: connect: connection refused",
		"controller.go:116] loading OpenAPI spec for \"v1.packages.operators.coreos.com\" failed with: failed to retrieve openapi spec, http error: ResponseCode: 503, Body: service unavailable %d",
		"cacher.go:1461] Terminating all watchers from cacher *unstructured.Unstructured %d",
		"httplog.go:131] \"HTTP\" verb=\"GET\" URI=\"/apis/apps/v1/namespaces/openshift-etcd/deployments?limit=%d\" latency=\"2.118ms\" userAgent=\"cluster-etcd-operator/v0.0.0\" resp=200",
		"clientconn.go:1331] [core] grpc: addrConn.createTransport failed to connect to {Addr: \"10.0.%d.4:2380\", ServerName: \"10.0.1.4\"}. Err: connection error: desc = \"transport: Error while dialing: dial tcp 10.0.1.4:2380: connect: connection refused\"",
	}
	planted := []string{
		"W1112 20:18:41.941578       1 clientconn.go:1120] grpc: addrConn.createTransport failed to connect to {https://10.0.61.114:2379  <nil> 0 <nil>}. Err: connection error: desc = \"transport: Error while dialing dial tcp 10.0.61.114:2379: connect: connection refused\". Reconnecting...",
		"I1112 20:18:41.943152       1 controlbuf.go:508] transport: loopyWriter.run returning. connection error: desc = \"transport is closing\"",
		"Nov 12 20:58:46.364 W ns/openshift-controller-manager pod/controller-manager-g9tkl network is not ready: runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: Missing CNI default network",
		"Nov 12 20:58:48.701 W ns/openshift-operator-lifecycle-manager pod/catalog-operator-86488444c-v4h5q Readiness probe failed: Get http://10.129.0.46:8080/healthz: net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers) (2 times)",
		"Nov 12 20:58:46.230 I ns/openshift-sdn pod/sdn-7d6g9 node/ip-10-0-1-2 reason/Killing Stopping container sdn",
	}
	var b bytes.Buffer
	at := time.Date(2026, 11, 12, 20, 0, 0, 0, time.UTC)
	for n := 0; b.Len() < size; n++ {
		at = at.Add(time.Duration(rng.IntN(50)) * time.Millisecond)
		if n%40000 == 39999 {
			b.WriteString(planted[rng.IntN(len(planted))])
			b.WriteByte('\n')
			continue
		}
		switch r := rng.IntN(100); {
		case r < 45:
			ns := namespaces[rng.IntN(len(namespaces))]
			reason := fmt.Sprintf(reasons[rng.IntN(len(reasons))], ns[10:])
			fmt.Fprintf(&b, "%s %c ns/%s pod/%s-%x node/ip-10-0-%d-%d.us-east-2.compute.internal %s\n",
				at.Format("Jan 02 15:04:05.000"), "IWE"[rng.IntN(3)], ns, ns[10:], rng.Uint32(), rng.IntN(255), rng.IntN(255), reason)
		case r < 80:
			fmt.Fprintf(&b, "%c%s %8d %s\n", "IWE"[rng.IntN(3)], at.Format("0102 15:04:05.000000"), 1+rng.IntN(300),
				fmt.Sprintf(klog[rng.IntN(len(klog))], rng.IntN(255)))
		case r < 90:
			fmt.Fprintf(&b, "INFO[%s] Running step e2e-aws-ovn-upgrade-openshift-e2e-test %d.\n", at.Format(time.RFC3339), rng.IntN(1000))
		case r < 95:
			fmt.Fprintf(&b, "passed: (%d.%ds) %s \"[sig-network] Services should serve endpoints on same port and different protocols [Suite:openshift/conformance/parallel] %d\"\n",
				rng.IntN(60), rng.IntN(10), at.Format("2006-01-02T15:04:05"), rng.IntN(1000))
		default:
			fmt.Fprintf(&b, "{\"level\":\"info\",\"ts\":\"%s\",\"caller\":\"etcdserver/server.go:1234\",\"msg\":\"applied entries\",\"index\":%d}\n",
				at.Format(time.RFC3339Nano), rng.IntN(1<<30))
		}
	}
	return b.Bytes()
}

// benchRules is the built-in rules, each of which also reads
// build-log.txt.
func benchRules() []Rule {
	rules := Builtin()
	for i := range rules {
		rules[i].Files = append(rules[i].Files, "build-log.txt")
	}
	return rules
}

// textRegexes returns the regexes text lines go through.
func textRegexes(rules []Rule) []string {
	var out []string
	for _, r := range rules {
		for _, m := range r.Match {
			switch {
			case m.Lines != nil:
				out = append(out, m.Lines.Any...)
			case m.Sequence != nil:
				out = append(out, m.Sequence.First, m.Sequence.Then)
			}
		}
	}
	return out
}

// TestWriteBenchInput writes the inputs of the comparison with ripgrep
// and GNU grep that make bench-engine runs:
//
//	go test ./classify -run TestWriteBenchInput -benchinput DIR
//
// DIR/upgrade.log is upgradeLog's realistic step logs and DIR/build-log.txt
// benchLog's synthetic one, 64 MiB each; DIR/rg.txt holds the built-in
// rules' regular expressions of text lines, their named groups unnamed
// (ripgrep rejects a name used twice), and DIR/plain.txt the plain
// patterns a grep user would write for the same symptoms.
func TestWriteBenchInput(t *testing.T) {
	if *benchInput == "" {
		t.Skip("-benchinput not set")
	}
	var res []string
	for _, re := range textRegexes(benchRules()) {
		res = append(res, namedGroup.ReplaceAllString(re, "("))
	}
	for name, data := range map[string][]byte{
		"upgrade.log":   upgradeLog(benchSize),
		"build-log.txt": benchLog(benchSize),
		"rg.txt":        []byte(strings.Join(res, "\n") + "\n"),
		"plain.txt":     []byte(strings.Join(plainPatterns, "\n") + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(*benchInput, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// namedGroup is the start of a named group.
var namedGroup = regexp.MustCompile(`\(\?P<[A-Za-z0-9_]+>`)

// plainPatterns are what a grep user would search for the built-in text
// symptoms: their distinctive phrases, without the rules' care for
// addresses and ports.
var plainPatterns = []string{
	`:2379: connect: connection refused`,
	`transport is closing`,
	`NetworkPluginNotReady.*Missing CNI default network`,
	`dial tcp .*: (i/o timeout|connect: no route to host|connect: connection timed out)`,
	`request canceled while waiting for connection`,
	`Client\.Timeout exceeded`,
	`ns/openshift-(sdn|ovn-kubernetes) .*(Killing|Deleted pod|Pulling|Started|Stopping container)`,
	`Readiness probe failed|reason/ReadinessFailed`,
}

const benchSize = 64 << 20

// BenchmarkEngine matches a 64 MiB build log with the built-in rules.
func BenchmarkEngine(b *testing.B) {
	benchEngine(b, benchLog(benchSize))
}

// BenchmarkEngineUpgrade matches 64 MiB of realistic upgrade step logs
// (upgradeLog) with the built-in rules.
func BenchmarkEngineUpgrade(b *testing.B) {
	benchEngine(b, upgradeLog(benchSize))
}

// benchEngine matches log, as the build log of a run, with the built-in
// rules.
func benchEngine(b *testing.B, log []byte) {
	e, err := NewEngine(benchRules())
	if err != nil {
		b.Fatal(err)
	}
	start := time.Date(2026, 11, 12, 19, 0, 0, 0, time.UTC)
	b.SetBytes(int64(len(log)))
	b.ResetTimer()
	for b.Loop() {
		s := e.Begin(RunInfo{Start: start})
		if err := s.File(b.Context(), "build-log.txt", bytes.NewReader(log)); err != nil {
			b.Fatal(err)
		}
		if len(s.Matches()) == 0 {
			b.Fatal("no matches")
		}
	}
}

// BenchmarkAutomaton is the automaton's scan alone, the floor of the
// engine's cost.
func BenchmarkAutomaton(b *testing.B) {
	log := benchLog(8 << 20)
	var lits []string
	for _, re := range textRegexes(benchRules()) {
		for _, set := range requiredLiterals(re) {
			lits = append(lits, set...)
		}
	}
	a := newAutomaton(lits)
	b.SetBytes(int64(len(log)))
	var hits []hit
	var spare [3][]hit
	for b.Loop() {
		hits = a.scan(log, hits[:0], &spare)
	}
}

// BenchmarkWants asks the built-in rules about the object names of a run
// as a real one has them: thousands of pod logs, manifests and metrics, a
// few of which a rule reads.
func BenchmarkWants(b *testing.B) {
	e, err := NewEngine(Builtin())
	if err != nil {
		b.Fatal(err)
	}
	var names []string
	for i := range 2000 {
		ns := fmt.Sprintf("openshift-ns-%d", i%50)
		names = append(names,
			fmt.Sprintf("artifacts/e2e-aws-upgrade/gather-must-gather/artifacts/must-gather/namespaces/%s/pods/pod-%d/pod-%d.yaml", ns, i, i),
			fmt.Sprintf("artifacts/e2e-aws-upgrade/gather-extra/artifacts/pods/%s_pod-%d_container.log", ns, i),
		)
	}
	names = append(names, "build-log.txt", "artifacts/e2e-aws-upgrade/openshift-e2e-test/build-log.txt",
		"artifacts/e2e-aws-upgrade/openshift-e2e-test/artifacts/junit/junit_e2e.xml")
	b.ResetTimer()
	wanted := 0
	for b.Loop() {
		wanted = 0
		for _, n := range names {
			if e.Wants(n) {
				wanted++
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(names)), "ns/name")
	b.ReportMetric(float64(wanted), "wanted")
}
