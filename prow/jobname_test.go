package prow

import (
	"slices"
	"testing"
)

func TestParseJobNameEdges(t *testing.T) {
	tests := []struct {
		name string
		want Variants
	}{
		{"branch-ci-openshift-origin-master-images", Variants{"", "", "none", "", "", "amd64", "ha", "postsubmit", "ipv4"}},
		{"ci-kubernetes-e2e-gce", Variants{"", "", "none", "", "", "amd64", "ha", "", "ipv4"}},
		{"PERIODIC-CI-OPENSHIFT-RELEASE-MASTER-CI-4.14-E2E-AWS-OVN-UPGRADE", Variants{"4.14", "4.14", "micro", "aws", "ovn", "amd64", "ha", "periodic", "ipv4"}},
		// ipv4/ipv6/e2e hold digits but no release; a three-part version counts as its X.Y.
		{"pull-ci-x-main-e2e-metal-ipi-ovn-ipv6-4.14.2-upgrade", Variants{"4.14", "4.14", "micro", "metal", "ovn", "amd64", "ha", "presubmit", "ipv6"}},
		{"rehearse-59629-periodic-ci-openshift-release-master-ci-4.9-upgrade-from-stable-4.8-e2e-aws-upgrade", Variants{"4.9", "4.8", "minor", "aws", "sdn", "amd64", "ha", "presubmit", "ipv4"}},
		{"periodic-ci-openshift-release-master-nightly-4.12-upgrade-from-stable-4.10-e2e-aws-sdn-upgrade", Variants{"4.12", "4.10", "multi", "aws", "sdn", "amd64", "ha", "periodic", "ipv4"}},
		{"periodic-x-4.99999-upgrade", Variants{"", "", "", "", "", "amd64", "ha", "periodic", "ipv4"}},
		{"", Variants{"", "", "none", "", "", "amd64", "ha", "", "ipv4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseJobName(tt.name); got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func FuzzParseJobName(f *testing.F) {
	for _, r := range readJobNames(f) {
		f.Add(r.name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		v := ParseJobName(name)
		if v != ParseJobName(name) {
			t.Fatal("two parses differ")
		}
		if (v.Release == "") != (v.FromRelease == "") {
			t.Fatalf("release %q from %q", v.Release, v.FromRelease)
		}
		if v.Release != "" {
			r, ok1 := parseRelease(v.Release)
			fr, ok2 := parseRelease(v.FromRelease)
			if !ok1 || !ok2 || fr.compare(r) > 0 || ReleaseOf(v.Release) != v.Release {
				t.Fatalf("bad releases %q %q", v.FromRelease, v.Release)
			}
		}
		if !slices.Contains([]string{"", UpgradeNone, UpgradeMicro, UpgradeMinor, UpgradeMulti, UpgradeMajor, UpgradeMicroDowngrade}, v.Upgrade) {
			t.Fatalf("upgrade %q", v.Upgrade)
		}
		if v.Upgrade == "" && v.Release != "" {
			t.Fatalf("unknown upgrade with release %q", v.Release)
		}
		if !slices.Contains([]string{StackIPv4, StackIPv6, StackDual}, v.Stack) {
			t.Fatalf("stack %q", v.Stack)
		}
		if !slices.Contains([]string{"amd64", "arm64", "ppc64le", "s390x", "multi"}, v.Arch) {
			t.Fatalf("arch %q", v.Arch)
		}
		if !slices.Contains([]string{TopologyHA, TopologySingle, TopologyCompact, TopologyTwoNodeArbiter, TopologyTwoNodeFencing, TopologyExternal}, v.Topology) {
			t.Fatalf("topology %q", v.Topology)
		}
		if !slices.Contains([]string{"", "ovn", "sdn", "cilium"}, v.Network) {
			t.Fatalf("network %q", v.Network)
		}
	})
}

func BenchmarkParseJobName(b *testing.B) {
	rows := readJobNames(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range rows {
			ParseJobName(r.name)
		}
	}
}
