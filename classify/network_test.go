package classify

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// TestClusterNetworkRuns: pod-network-cross-node counts timeouts to the
// run's own pod addresses, in the forms Go writes them (IPv4, and IPv6 in
// brackets with a port, in URLs, in read tcp a->b), and never those to its
// service or node addresses, on an IPv6 cluster, a dual-stack one, one
// installed with another IPv4 cluster network whose nodes lie in
// 10.128.0.0/14, and one that does not say (the default network).
func TestClusterNetworkRuns(t *testing.T) {
	e, err := NewEngine(Builtin())
	if err != nil {
		t.Fatal(err)
	}
	type timeout struct {
		line string
		pod  bool // to a pod address: the symptom
	}
	// Lines as monitor, klog and probe lines print them, with the run's
	// addresses put in.
	lines := func(pod, svc, node string) []timeout {
		host := func(a string) string {
			if strings.Contains(a, ":") {
				return "[" + a + "]"
			}
			return a
		}
		return []timeout{
			{fmt.Sprintf("Nov 20 10:58:47.001 W ns/openshift-monitoring pod/prometheus-k8s-0 node/worker-0 reason/ProbeError Readiness probe error: Get \"https://%s:9091/-/ready\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)", host(pod)), true},
			{fmt.Sprintf("E1120 10:58:48.100000       1 available_controller.go:524] v1.apps.openshift.io failed with: failing or missing response from https://%s:8443/apis/apps.openshift.io/v1: Get \"https://%s:8443/apis/apps.openshift.io/v1\": dial tcp %s:8443: i/o timeout", host(pod), host(pod), host(pod)), true},
			{fmt.Sprintf("Nov 20 10:58:49.230 E ns/e2e-test pod/client-a node/worker-1 read tcp %s:43210->%s:8080: i/o timeout", host(node), host(pod)), true},
			{fmt.Sprintf("Nov 20 10:58:50.000 W ns/openshift-dns pod/dns-default-x node/worker-1 Readiness probe failed: Get \"http://%s:8181/ready\": net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)", host(pod)), true},
			{fmt.Sprintf("E1120 10:58:51.000000       1 reflector.go:138] failed to list: Get \"https://%s:443/api/v1/pods\": dial tcp %s:443: i/o timeout", host(svc), host(svc)), false},
			{fmt.Sprintf("Nov 20 10:58:52.000 W ns/openshift-etcd pod/etcd-master-0 node/master-0 Readiness probe failed: Get \"https://%s:9980/readyz\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)", host(node)), false},
			{fmt.Sprintf("E1120 10:58:53.000000       1 leaderelection.go:330] error retrieving resource lock: dial tcp %s:6443: i/o timeout", host(node)), false},
		}
	}
	prefixes := func(s ...string) []netip.Prefix {
		var out []netip.Prefix
		for _, p := range s {
			out = append(out, netip.MustParsePrefix(p))
		}
		return out
	}
	for _, c := range []struct {
		name     string
		networks []netip.Prefix
		lines    []timeout
	}{
		{"ipv6", prefixes("fd01::/48"), lines("fd01:0:0:5::2f", "fd02::1", "fd2e:6f44:5dd8:c956::14")},
		{"dual-stack, its IPv4 half", prefixes("10.128.0.0/14", "fd01::/48"), lines("10.129.2.14", "172.30.0.1", "10.0.61.114")},
		{"dual-stack, its IPv6 half", prefixes("10.128.0.0/14", "fd01::/48"), lines("fd01:0:0:4::1a", "fd02::a", "fd2e:6f44:5dd8:c956::15")},
		// Installed with 10.132.0.0/14 on a VPC of 10.128.0.0/16: its nodes
		// lie in the default cluster network.
		{"custom IPv4 network", prefixes("10.132.0.0/14"), lines("10.133.0.7", "172.30.0.10", "10.128.10.5")},
		{"no network said: the default", nil, lines("10.131.0.7", "172.30.0.10", "10.0.140.81")},
	} {
		t.Run(c.name, func(t *testing.T) {
			tp, fn, fp := 0, 0, 0
			for _, l := range c.lines {
				got, errs := scanFiles(t, e, RunInfo{Start: runStart, Topology: "ha", ClusterNetworks: c.networks},
					file{"build-log.txt", l.line + "\n"})
				if len(errs) > 0 {
					t.Fatal(errs)
				}
				found := false
				for _, m := range got {
					found = found || m.Symptom == "pod-network-cross-node"
				}
				switch {
				case found && l.pod:
					tp++
				case found:
					fp++
					t.Errorf("counted a timeout to a service or node address: %s", l.line)
				case l.pod:
					fn++
					t.Errorf("missed a timeout to a pod address: %s", l.line)
				}
			}
			if tp == 0 || fn != 0 || fp != 0 {
				t.Errorf("precision and recall: %d found, %d missed, %d wrong", tp, fn, fp)
			}
		})
	}
}
