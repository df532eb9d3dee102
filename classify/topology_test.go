package classify

import (
	"strings"
	"testing"

	"github.com/openshift-eng/prowcrawl/prow"
)

// TestPodNetworkTopology: a readiness probe that timed out against a pod
// address is pod-network-cross-node on an HA cluster, and nothing of the
// kind on a single-node one (one node has no cross-node traffic; the seed's
// single-node case was etcd). kube-apiserver's own log shows it too.
func TestPodNetworkTopology(t *testing.T) {
	e, err := NewEngine(Builtin())
	if err != nil {
		t.Fatal(err)
	}
	const probe = `Jan 12 20:58:46.230 W ns/openshift-monitoring pod/prometheus-k8s-0 node/ip-10-0-61-114.ec2.internal reason/ProbeError Readiness probe error: Get "https://10.128.2.14:9090/-/ready": context deadline exceeded (Client.Timeout exceeded while awaiting headers)` + "\n"
	const apiserverLog = `E0112 20:58:46.230145      18 controller.go:146] "Unhandled Error" err="loading OpenAPI spec for \"v1.apps.openshift.io\" failed with: failing or missing response from https://10.128.0.32:8443/openapi/v2: Get \"https://10.128.0.32:8443/openapi/v2\": dial tcp 10.128.0.32:8443: i/o timeout"` + "\n"
	for _, c := range []struct {
		name, topology, file, text string
		want                       bool
	}{
		{"ha probe timeout", prow.TopologyHA, "artifacts/e2e-aws-ovn-upgrade/openshift-e2e-test/build-log.txt", probe, true},
		{"unknown topology", "", "artifacts/e2e-aws-ovn-upgrade/openshift-e2e-test/build-log.txt", probe, true},
		{"single-node probe timeout", prow.TopologySingle, "artifacts/e2e-aws-upgrade-ovn-single-node/openshift-e2e-test/build-log.txt", probe, false},
		{"kube-apiserver log", prow.TopologyHA,
			"artifacts/e2e-aws-ovn-upgrade/gather-extra/artifacts/pods/openshift-kube-apiserver_kube-apiserver-ip-10-0-61-114.ec2.internal_kube-apiserver.log", apiserverLog, true},
		{"kube-apiserver log, single node", prow.TopologySingle,
			"artifacts/e2e-aws-upgrade-ovn-single-node/gather-extra/artifacts/pods/openshift-kube-apiserver_kube-apiserver-ip-10-0-61-114.ec2.internal_kube-apiserver.log", apiserverLog, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !e.Wants(c.file) {
				t.Fatalf("no rule reads %s", c.file)
			}
			s := e.Begin(RunInfo{Topology: c.topology})
			if err := s.File(t.Context(), c.file, strings.NewReader(c.text)); err != nil {
				t.Fatal(err)
			}
			got := false
			for _, m := range s.Matches() {
				got = got || m.Symptom == "pod-network-cross-node"
			}
			if got != c.want {
				t.Errorf("pod-network-cross-node found %v, want %v (matches %+v)", got, c.want, s.Matches())
			}
		})
	}
}

func TestRuleTopologyParse(t *testing.T) {
	rules, err := ParseRules("t.yaml", []byte(`symptoms:
  - id: multi-node-only
    title: t
    files: [build-log.txt]
    not_topology: [single, two-node-arbiter]
    match:
      - lines: {any: [x]}
`))
	if err != nil {
		t.Fatal(err)
	}
	if r := rules[0]; r.appliesTo(prow.TopologySingle) || !r.appliesTo(prow.TopologyHA) || !r.appliesTo("") {
		t.Errorf("not_topology %q applies wrongly", r.NotTopology)
	}
	_, err = ParseRules("t.yaml", []byte(`symptoms:
  - id: bad
    title: t
    files: [build-log.txt]
    topology: [sno]
    match:
      - lines: {any: [x]}
`))
	if err == nil || !strings.Contains(err.Error(), `unknown topology "sno"`) {
		t.Errorf("unknown topology: %v", err)
	}
}
