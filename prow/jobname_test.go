package prow

import (
	"slices"
	"testing"
)

// jobNameTests are real OpenShift CI job names, from Sippy's variant tests
// and configuration, ci-tools, release-controller configuration, CI links in
// bug reports and pull requests, with the variants this package must give.
// Release and FromRelease are checked numerically (4.9 < 4.10).
var jobNameTests = []struct {
	name string
	want Variants
}{
	// 2019-2020 template-era periodics started by the release controller.
	{"release-openshift-origin-installer-e2e-aws-upgrade", Variants{"", "", "", "aws", "", "amd64", "periodic"}},
	{"release-openshift-origin-installer-e2e-gcp-upgrade", Variants{"", "", "", "gcp", "", "amd64", "periodic"}},
	{"release-openshift-origin-installer-e2e-azure-upgrade", Variants{"", "", "", "azure", "", "amd64", "periodic"}},
	{"release-openshift-origin-installer-e2e-gcp-upgrade-4.6", Variants{"4.6", "4.6", "micro", "gcp", "", "amd64", "periodic"}},
	{"release-openshift-origin-installer-e2e-azure-upgrade-4.6", Variants{"4.6", "4.6", "micro", "azure", "", "amd64", "periodic"}},
	{"release-openshift-origin-installer-e2e-gcp-upgrade-4.7", Variants{"4.7", "4.7", "micro", "gcp", "", "amd64", "periodic"}},
	{"release-openshift-origin-installer-e2e-gcp-upgrade-4.8", Variants{"4.8", "4.8", "micro", "gcp", "", "amd64", "periodic"}},
	{"release-openshift-origin-installer-e2e-aws-upgrade-4.2-stable-to-4.2-nightly", Variants{"4.2", "4.2", "micro", "aws", "", "amd64", "periodic"}},
	{"release-openshift-origin-installer-e2e-aws-upgrade-4.4-stable-to-4.5-nightly", Variants{"4.5", "4.4", "minor", "aws", "", "amd64", "periodic"}},
	{"release-openshift-origin-installer-e2e-aws-upgrade-4.5-stable-to-4.6-ci", Variants{"4.6", "4.5", "minor", "aws", "", "amd64", "periodic"}},
	{"release-openshift-ocp-installer-e2e-ovirt-upgrade-4.5-stable-to-4.6-ci", Variants{"4.6", "4.5", "minor", "ovirt", "", "amd64", "periodic"}},
	{"release-openshift-origin-installer-e2e-aws-upgrade-rollback-4.1", Variants{"4.1", "4.1", "micro", "aws", "", "amd64", "periodic"}},
	{"release-openshift-origin-installer-e2e-aws-upgrade-rollback-4.5-to-4.6", Variants{"4.6", "4.5", "minor", "aws", "", "amd64", "periodic"}},
	{"release-openshift-origin-installer-e2e-aws-upgrade-4.6-to-4.7-to-4.8-to-4.9-ci", Variants{"4.9", "4.6", "multi", "aws", "", "amd64", "periodic"}},
	{"release-openshift-origin-installer-e2e-aws-upgrade-4.7-to-4.8-to-4.9-to-4.10-ci", Variants{"4.10", "4.7", "multi", "aws", "", "amd64", "periodic"}},
	{"release-openshift-origin-installer-e2e-aws-upgrade-4.21-to-4.22-to-5.0-ci", Variants{"5.0", "4.21", "multi", "aws", "", "amd64", "periodic"}},
	{"release-openshift-ocp-installer-e2e-aws-4.6", Variants{"4.6", "4.6", "none", "aws", "", "amd64", "periodic"}},
	{"release-openshift-ocp-installer-e2e-gcp-4.6", Variants{"4.6", "4.6", "none", "gcp", "", "amd64", "periodic"}},
	{"release-openshift-origin-installer-e2e-aws-disruptive-4.6", Variants{"4.6", "4.6", "none", "aws", "", "amd64", "periodic"}},

	// Presubmits.
	{"pull-ci-openshift-origin-master-e2e-aws-ovn-upgrade", Variants{"", "", "", "aws", "ovn", "amd64", "presubmit"}},

	// Step-registry periodics, 2021 onwards.
	{"periodic-ci-openshift-release-master-ci-4.9-upgrade-from-stable-4.8-e2e-vsphere-upgrade", Variants{"4.9", "4.8", "minor", "vsphere", "", "amd64", "periodic"}},
	{"periodic-ci-openshift-release-master-ci-4.10-upgrade-from-stable-4.9-e2e-vsphere-upgrade", Variants{"4.10", "4.9", "minor", "vsphere", "", "amd64", "periodic"}},
	{"periodic-ci-openshift-release-master-ci-4.10-upgrade-from-stable-4.9-e2e-ovirt-upgrade", Variants{"4.10", "4.9", "minor", "ovirt", "", "amd64", "periodic"}},
	{"periodic-ci-openshift-release-master-ci-4.10-upgrade-from-stable-4.9-from-stable-4.8-e2e-aws-upgrade", Variants{"4.10", "4.8", "multi", "aws", "", "amd64", "periodic"}},
	{"periodic-ci-openshift-release-master-ci-4.10-e2e-aws-upgrade-single-node", Variants{"4.10", "4.10", "micro", "aws", "", "amd64", "periodic"}},
	{"periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade", Variants{"4.14", "4.13", "minor", "aws", "ovn", "amd64", "periodic"}},
	{"periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-sdn-upgrade", Variants{"4.14", "4.13", "minor", "aws", "sdn", "amd64", "periodic"}},
	{"periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-azure-sdn-upgrade", Variants{"4.14", "4.13", "minor", "azure", "sdn", "amd64", "periodic"}},
	{"periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-gcp-ovn-rt-upgrade", Variants{"4.14", "4.13", "minor", "gcp", "ovn", "amd64", "periodic"}},
	{"periodic-ci-openshift-release-master-nightly-4.14-upgrade-from-stable-4.13-e2e-metal-ipi-sdn-bm-upgrade", Variants{"4.14", "4.13", "minor", "metal", "sdn", "amd64", "periodic"}},
	{"periodic-ci-openshift-release-master-nightly-4.14-e2e-aws-sdn-upgrade", Variants{"4.14", "4.14", "micro", "aws", "sdn", "amd64", "periodic"}},
	{"periodic-ci-openshift-release-master-ci-4.16-upgrade-from-stable-4.15-e2e-azure-sdn-upgrade", Variants{"4.16", "4.15", "minor", "azure", "sdn", "amd64", "periodic"}},
	{"periodic-ci-openshift-release-master-ci-4.15-upgrade-from-stable-4.14-from-stable-4.13-e2e-aws-sdn-upgrade", Variants{"4.15", "4.13", "multi", "aws", "sdn", "amd64", "periodic"}},
	{"periodic-ci-openshift-release-master-nightly-4.16-upgrade-from-stable-4.15-e2e-metal-ipi-upgrade-ovn-ipv6", Variants{"4.16", "4.15", "minor", "metal", "ovn", "amd64", "periodic"}},
	// Sippy calls this micro-downgrade; the contract has no such kind.
	{"periodic-ci-openshift-release-master-ci-4.16-e2e-aws-ovn-upgrade-out-of-change", Variants{"4.16", "4.16", "micro", "aws", "ovn", "amd64", "periodic"}},
	{"periodic-ci-openshift-release-master-ci-5.0-upgrade-from-stable-4.22-e2e-aws-upgrade", Variants{"5.0", "4.22", "major", "aws", "", "amd64", "periodic"}},
	{"periodic-ci-openshift-release-master-ci-5.10-upgrade-from-stable-5.9-e2e-aws-upgrade", Variants{"5.10", "5.9", "minor", "aws", "", "amd64", "periodic"}},
	{"aggregated-aws-ovn-upgrade-5.1-minor-release-openshift-release-analysis-aggregator", Variants{"5.1", "5.1", "minor", "aws", "ovn", "amd64", "periodic"}},
	{"aggregated-aws-ovn-upgrade-5.1-major-release-openshift-release-analysis-aggregator", Variants{"5.1", "5.1", "major", "aws", "ovn", "amd64", "periodic"}},

	// Other architectures.
	{"periodic-ci-openshift-multiarch-master-nightly-4.18-ocp-e2e-upgrade-aws-ovn-arm64", Variants{"4.18", "4.18", "micro", "aws", "ovn", "arm64", "periodic"}},
	{"periodic-ci-openshift-multiarch-master-nightly-4.18-ocp-e2e-upgrade-aws-ovn-multi-a-a", Variants{"4.18", "4.18", "micro", "aws", "ovn", "arm64", "periodic"}},
	{"periodic-ci-openshift-multiarch-master-nightly-4.14-upgrade-from-nightly-4.13-ocp-ovn-remote-libvirt-s390x", Variants{"4.14", "4.13", "minor", "libvirt", "ovn", "s390x", "periodic"}},
	{"periodic-ci-openshift-multiarch-master-nightly-4.16-upgrade-from-nightly-4.15-ocp-e2e-upgrade-gcp-ovn-heterogeneous", Variants{"4.16", "4.15", "minor", "gcp", "ovn", "multi", "periodic"}},
	{"periodic-ci-openshift-multiarch-master-nightly-4.13-ocp-e2e-ovn-ppc64le-powervs", Variants{"4.13", "4.13", "none", "powervs", "ovn", "ppc64le", "periodic"}},
	{"periodic-ci-openshift-multiarch-master-nightly-4.17-ocp-e2e-ovn-powervs-capi-multi-p-p", Variants{"4.17", "4.17", "none", "powervs", "ovn", "ppc64le", "periodic"}},
	{"periodic-ci-openshift-multiarch-master-nightly-4.17-ocp-e2e-gcp-ovn-multi-x-ax", Variants{"4.17", "4.17", "none", "gcp", "ovn", "multi", "periodic"}},
	{"periodic-ci-openshift-multiarch-master-nightly-4.10-ocp-e2e-aws-arm64-single-node", Variants{"4.10", "4.10", "none", "aws", "", "arm64", "periodic"}},
	{"periodic-ci-openshift-multiarch-master-nightly-4.10-ocp-installer-remote-libvirt-ppc64le", Variants{"4.10", "4.10", "none", "libvirt", "", "ppc64le", "periodic"}},
	{"periodic-ci-openshift-hypershift-release-4.20-periodics-e2e-aws-multi", Variants{"4.20", "4.20", "none", "aws", "", "multi", "periodic"}},
	{"periodic-ci-openshift-openshift-tests-private-release-4.17-multi-nightly-4.17-upgrade-from-stable-4.17-gcp-ipi-xpn-oidc-arm-f60", Variants{"4.17", "4.17", "micro", "gcp", "", "arm64", "periodic"}},

	// Not upgrades.
	{"periodic-ci-openshift-release-master-nightly-4.17-e2e-vsphere-ovn-multi-network-multi-a-a-techpreview", Variants{"4.17", "4.17", "none", "vsphere", "ovn", "arm64", "periodic"}},
	{"periodic-ci-openshift-release-master-nightly-4.16-e2e-metal-ipi-ovn-dualstack", Variants{"4.16", "4.16", "none", "metal", "ovn", "amd64", "periodic"}},
	{"periodic-ci-openshift-release-master-nightly-4.16-e2e-gcp-ovn-fips", Variants{"4.16", "4.16", "none", "gcp", "ovn", "amd64", "periodic"}},
	{"periodic-ci-openshift-release-master-nightly-4.19-e2e-rosa-sts-ovn", Variants{"4.19", "4.19", "none", "rosa", "ovn", "amd64", "periodic"}},
	{"periodic-ci-openshift-hypershift-release-4.16-periodics-e2e-aws-ovn-conformance", Variants{"4.16", "4.16", "none", "aws", "ovn", "amd64", "periodic"}},
	{"periodic-ci-openshift-release-master-nightly-4.17-e2e-telco5g", Variants{"4.17", "4.17", "none", "", "", "amd64", "periodic"}},
	{"periodic-ci-openshift-qe-ocp-qe-perfscale-ci-main-aws-4.17-nightly-x86-payload-control-plane-6nodes", Variants{"4.17", "4.17", "none", "aws", "", "amd64", "periodic"}},
	{"periodic-ci-openshift-with-no-release-info", Variants{"", "", "none", "", "", "amd64", "periodic"}},
}

func TestParseJobName(t *testing.T) {
	if len(jobNameTests) < 40 {
		t.Fatalf("only %d job names", len(jobNameTests))
	}
	for _, tt := range jobNameTests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseJobName(tt.name); got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseJobNameEdges(t *testing.T) {
	tests := []struct {
		name string
		want Variants
	}{
		{"branch-ci-openshift-origin-master-images", Variants{"", "", "none", "", "", "amd64", "postsubmit"}},
		{"ci-kubernetes-e2e-gce", Variants{"", "", "none", "", "", "amd64", ""}},
		{"PERIODIC-CI-OPENSHIFT-RELEASE-MASTER-CI-4.14-E2E-AWS-OVN-UPGRADE", Variants{"4.14", "4.14", "micro", "aws", "ovn", "amd64", "periodic"}},
		// ipv4/ipv6/e2e hold digits but no release; a three-part version counts as its X.Y.
		{"pull-ci-x-main-e2e-metal-ipi-ovn-ipv6-4.14.2-upgrade", Variants{"4.14", "4.14", "micro", "metal", "ovn", "amd64", "presubmit"}},
		{"rehearse-59629-periodic-ci-openshift-release-master-ci-4.9-upgrade-from-stable-4.8-e2e-aws-upgrade", Variants{"4.9", "4.8", "minor", "aws", "", "amd64", "presubmit"}},
		{"periodic-ci-openshift-release-master-nightly-4.12-upgrade-from-stable-4.10-e2e-aws-sdn-upgrade", Variants{"4.12", "4.10", "multi", "aws", "sdn", "amd64", "periodic"}},
		{"periodic-x-4.99999-upgrade", Variants{"", "", "", "", "", "amd64", "periodic"}},
		{"", Variants{"", "", "none", "", "", "amd64", ""}},
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
	for _, tt := range jobNameTests {
		f.Add(tt.name)
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
		if !slices.Contains([]string{"", UpgradeNone, UpgradeMicro, UpgradeMinor, UpgradeMulti, UpgradeMajor}, v.Upgrade) {
			t.Fatalf("upgrade %q", v.Upgrade)
		}
		if v.Upgrade == "" && v.Release != "" {
			t.Fatalf("unknown upgrade with release %q", v.Release)
		}
		if !slices.Contains([]string{"amd64", "arm64", "ppc64le", "s390x", "multi"}, v.Arch) {
			t.Fatalf("arch %q", v.Arch)
		}
		if !slices.Contains([]string{"", "ovn", "sdn"}, v.Network) {
			t.Fatalf("network %q", v.Network)
		}
	})
}

func BenchmarkParseJobName(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, tt := range jobNameTests {
			ParseJobName(tt.name)
		}
	}
}
