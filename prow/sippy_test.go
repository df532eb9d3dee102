package prow

import (
	"regexp"
	"slices"
	"strings"
)

// sippyVariants restates, in this package's terms, how Sippy's variant
// registry (openshift/sippy pkg/variantregistry/ocp.go, read in 2026) derives
// the variants this package derives from a job name alone: ordered lists of
// substrings, first match wins. The real-name table compares ParseJobName
// with it, so that every place where the two differ is written down with
// the reason (testdata/jobnames.tsv, last column).
func sippyVariants(name string) Variants {
	lower := strings.ToLower(name)
	first := func(s string, pairs ...string) string {
		for i := 0; i+1 < len(pairs); i += 2 {
			if strings.Contains(s, pairs[i]) {
				return pairs[i+1]
			}
		}
		return ""
	}
	var v Variants
	seen := map[string]bool{}
	var rels []release
	for _, m := range regexp.MustCompile(`\d+\.\d+`).FindAllString(name, -1) {
		if r, ok := parseRelease(m); ok && !seen[m] {
			seen[m] = true
			rels = append(rels, r)
		}
	}
	slices.SortFunc(rels, release.compare)
	if len(rels) > 0 {
		v.Release, v.FromRelease = rels[len(rels)-1].String(), rels[0].String()
	}
	switch {
	case !regexp.MustCompile(`(?i)-upgrade`).MatchString(name):
		v.Upgrade = UpgradeNone
		v.FromRelease = v.Release // Sippy drops FromRelease
	case strings.Contains(lower, "-upgrade-out-of-change"):
		v.Upgrade = UpgradeMicroDowngrade
	case regexp.MustCompile(`(?i)(-\d+\.\d+-.*-.*-\d+\.\d+)|(-\d+\.\d+-(minor|major))`).MatchString(name):
		switch {
		case len(rels) > 2:
			v.Upgrade = UpgradeMulti
		case len(rels) == 2:
			v.Upgrade = upgradeBetween(rels[0], rels[1])
		case strings.Contains(name, "-minor"):
			v.Upgrade = UpgradeMinor
		case strings.Contains(name, "-major"):
			v.Upgrade = UpgradeMajor
		default:
			v.Upgrade = UpgradeMicro
		}
	default:
		v.Upgrade = UpgradeMicro
	}
	v.Platform = first(lower, "-e2e-external-aws", "external-aws", "-e2e-external-vsphere", "external-vsphere",
		"-e2e-oci-assisted", "external-oci", "-rosa", "rosa", "-aws", "aws", "-alibaba", "alibaba",
		"-azure-aro-hcp", "aro", "-azure", "azure", "-aks", "azure", "-osd-ccs-gcp", "osd-gcp", "-gcp", "gcp",
		"-libvirt", "libvirt", "-iso-no-registry", "metal", "-metal", "metal", "-nutanix", "nutanix",
		"-openstack", "openstack", "-ovirt", "ovirt", "-vsphere", "vsphere")
	v.Network = first(lower, "-ovn", "ovn", "-sdn", "sdn", "-cilium", "cilium")
	if v.Network == "" && v.FromRelease != "" {
		v.Network = DefaultNetwork(v.FromRelease)
	}
	archName := lower
	for _, ignore := range []string{"-multi-vcenter-", "-multi-network-", "-multisubnets-", "-multitenant", "-multiarch", "-multinet"} {
		archName = strings.ReplaceAll(archName, ignore, "-")
	}
	v.Arch = cmpOr(first(archName, "-arm64", "arm64", "-multi-a-a", "arm64", "-arm", "arm64", "-ppc64le", "ppc64le",
		"-multi-p-p", "ppc64le", "-s390x", "s390x", "-multi-z-z", "s390x", "-heterogeneous", "multi", "-multi", "multi"), "amd64")
	v.Topology = cmpOr(first(lower, "-sno-", TopologySingle, "-single-node", TopologySingle,
		"-two-node-arbiter", TopologyTwoNodeArbiter, "-two-node-fencing", TopologyTwoNodeFencing,
		"-tna-", TopologyTwoNodeArbiter, "-tnf-", TopologyTwoNodeFencing, "-hypershift", TopologyExternal,
		"-hcp", TopologyExternal, "_hcp", TopologyExternal, "-compact", TopologyCompact, "-microshift", "microshift"), TopologyHA)
	return v
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
