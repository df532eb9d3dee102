package artifact

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/openshift-eng/prowcrawl"
)

// TestRunNetworks: a run's own cluster network, read from gather-extra's
// config-resources.json before any file is matched, decides which
// addresses are pods': an IPv6 run's timeouts to its pod addresses show
// pod-network-cross-node only with the file, and a run installed with
// another IPv4 network never shows it for a node address that lies in the
// default one. A damaged file is a parse problem and the run is matched as
// one that says nothing.
func TestRunNetworks(t *testing.T) {
	configs := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("..", "prow", "testdata", "networks", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	const resources = "artifacts/e2e-metal-ipi-upgrade-ovn-ipv6/gather-extra/artifacts/config-resources.json"
	log := func(addr string) File {
		return Bytes("artifacts/e2e-metal-ipi-upgrade-ovn-ipv6/openshift-e2e-test/build-log.txt", fmt.Appendf(nil,
			"Nov 20 10:58:47.001 W ns/openshift-monitoring pod/prometheus-k8s-0 node/worker-0 reason/ProbeError Readiness probe error: "+
				"Get \"https://%s:9091/-/ready\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)\n", addr))
	}
	for _, c := range []struct {
		name     string
		files    []File
		want     bool
		stack    string
		problems int
	}{
		{"ipv6 run, pod address", []File{Bytes(resources, configs("ipv6.json")), log("[fd01:0:0:5::2f]")}, true, "ipv6", 0},
		{"ipv6 run, service address", []File{Bytes(resources, configs("ipv6.json")), log("[fd02::1]")}, false, "ipv6", 0},
		{"ipv6 pod address, no config-resources.json", []File{log("[fd01:0:0:5::2f]")}, false, "", 0},
		{"custom network, its pod address", []File{Bytes(resources, configs("custom.json")), log("10.133.0.7")}, true, "ipv4", 0},
		{"custom network, a node in 10.128.0.0/14", []File{Bytes(resources, configs("custom.json")), log("10.128.10.5")}, false, "ipv4", 0},
		{"no config-resources.json, the default network", []File{log("10.128.10.5")}, true, "", 0},
		{"damaged config-resources.json", []File{Bytes(resources, []byte(`{"kind":"List","items":[{"apiVersion":"config.openshift.io/v1","kind":"Network","status":{"clusterNetwork":[{"cidr":"fd01::/480"}]}}]}`)), log("10.128.10.5")}, true, "", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Read(t.Context(), Run{Dir: "logs/job/1/", Files: append(meta("FAILURE"), c.files...)}, Options{Rules: builtin})
			if err != nil {
				t.Fatal(err)
			}
			got := slices.ContainsFunc(res.Symptoms, func(s prowcrawl.RunSymptom) bool { return s.SymptomID == "pod-network-cross-node" })
			if got != c.want {
				t.Errorf("pod-network-cross-node found %v, want %v (symptoms %+v)", got, c.want, res.Symptoms)
			}
			if res.Networks.Stack() != c.stack {
				t.Errorf("stack %q, want %q", res.Networks.Stack(), c.stack)
			}
			if len(res.Errors) != c.problems {
				t.Errorf("problems %+v, want %d", res.Errors, c.problems)
			}
		})
	}
}
