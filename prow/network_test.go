package prow

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestParseNetworks reads the networks of gather-extra's config-resources
// files shaped like real ones (a List of every config resource): the
// status's when there is one, the spec's otherwise, both families, and
// nothing from a file without a Network.
func TestParseNetworks(t *testing.T) {
	for _, c := range []struct {
		file             string
		cluster, service string
		stack            string
	}{
		{"ipv6.json", "[fd01::/48]", "[fd02::/112]", "ipv6"},
		{"dualstack.json", "[10.128.0.0/14 fd01::/48]", "[172.30.0.0/16 fd02::/112]", "dual"},
		{"custom.json", "[10.132.0.0/14]", "[172.31.0.0/16]", "ipv4"},
		{"spec-only.json", "[10.128.0.0/14]", "[172.30.0.0/16]", "ipv4"},
		{"no-network.json", "[]", "[]", ""},
	} {
		t.Run(c.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "networks", c.file))
			if err != nil {
				t.Fatal(err)
			}
			n, err := ParseNetworks(b)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(n.Cluster); got != c.cluster {
				t.Errorf("cluster networks %s, want %s", got, c.cluster)
			}
			if got := fmt.Sprint(n.Service); got != c.service {
				t.Errorf("service networks %s, want %s", got, c.service)
			}
			if n.Stack() != c.stack {
				t.Errorf("stack %q, want %q", n.Stack(), c.stack)
			}
		})
	}
	// A single Network resource, as `oc get network.config cluster -o json`
	// prints it.
	n, err := ParseNetworks([]byte(`{"apiVersion":"config.openshift.io/v1","kind":"Network","metadata":{"name":"cluster"},
		"spec":{"clusterNetwork":[{"cidr":"10.128.0.0/14","hostPrefix":23}],"serviceNetwork":["172.30.0.0/16"]}}`))
	if err != nil || fmt.Sprint(n.Cluster) != "[10.128.0.0/14]" {
		t.Errorf("one Network: %v, %v", n, err)
	}
	for _, bad := range []string{`[1,2]`, `{"kind":"List","items":{}}`, `{"apiVersion":"config.openshift.io/v1","kind":"Network","status":{"clusterNetwork":[{"cidr":"10.128.0.0/33"}]}}`, "\x1f\x8b"} {
		if _, err := ParseNetworks([]byte(bad)); err == nil {
			t.Errorf("ParseNetworks(%q) did not fail", bad)
		}
	}
}

func FuzzParseNetworks(f *testing.F) {
	for _, name := range []string{"ipv6.json", "dualstack.json", "no-network.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "networks", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := ParseNetworks(b)
		if err != nil {
			return
		}
		for _, p := range append(n.Cluster, n.Service...) {
			if !p.IsValid() || p != p.Masked() {
				t.Fatalf("network %v is not a masked prefix", p)
			}
		}
	})
}
