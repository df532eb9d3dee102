package prow

import (
	"slices"
	"strings"
)

// Variants are what a job name says about the runs of the job: the
// job-name variants contract of the design, derived as Sippy derives them.
type Variants struct {
	// Release is the highest X.Y in the name; FromRelease the lowest (the
	// same for a z-stream upgrade or a job with one version). Both are
	// empty when the name holds no version.
	Release, FromRelease string
	// Upgrade is UpgradeNone without "upgrade" in the name, else
	// UpgradeMicro, UpgradeMinor, UpgradeMulti or UpgradeMajor from the
	// versions in it, or "" for an upgrade job whose name holds no version
	// (2019-2020 names): the run's clusterversion decides then.
	Upgrade string
	// Platform is aws, gcp, azure, metal, vsphere, openstack, ovirt,
	// nutanix, ibmcloud, alibaba, libvirt, powervs, kubevirt or rosa; ""
	// when the name does not say.
	Platform string
	// Network is "ovn" or "sdn", or "" when the name does not say.
	Network string
	// Arch is amd64 unless the name says arm64, ppc64le, s390x or multi.
	Arch string
	// Type is presubmit, postsubmit or periodic when the name's prefix
	// says, else "".
	Type string
}

// ParseJobName derives the variants of a Prow job name such as
// "periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade".
func ParseJobName(name string) Variants {
	lower := strings.ToLower(strings.TrimSpace(name))
	tokens := strings.FieldsFunc(lower, func(r rune) bool { return r == '-' || r == '_' })
	v := Variants{
		Platform: platformOf(tokens),
		Network:  networkOf(tokens),
		Arch:     archOf(tokens),
		Type:     jobTypeOf(lower),
	}
	releases := releasesIn(lower)
	if len(releases) > 0 {
		v.Release = releases[len(releases)-1].String()
		v.FromRelease = releases[0].String()
	}
	switch {
	case !strings.Contains(lower, "upgrade"):
		v.Upgrade = UpgradeNone
	case len(releases) == 0:
		v.Upgrade = ""
	case len(releases) > 2:
		v.Upgrade = UpgradeMulti
	case len(releases) == 2:
		v.Upgrade = upgradeBetween(releases[0], releases[1])
	// Aggregated jobs name one version and the kind of upgrade
	// ("aggregated-aws-ovn-upgrade-4.14-minor-release-openshift-...").
	case slices.Contains(tokens, "major"):
		v.Upgrade = UpgradeMajor
	case slices.Contains(tokens, "minor"):
		v.Upgrade = UpgradeMinor
	default:
		v.Upgrade = UpgradeMicro
	}
	return v
}

// releasesIn returns the distinct X.Y releases in s, lowest first. Tokens
// such as "ipv4" or "e2e" hold digits but no X.Y and do not count; a longer
// version ("4.14.2") counts as its X.Y.
func releasesIn(s string) []release {
	var found []release
	for i := 0; i < len(s); {
		if s[i] < '0' || s[i] > '9' {
			i++
			continue
		}
		j := i
		for j < len(s) && (s[j] == '.' || (s[j] >= '0' && s[j] <= '9')) {
			j++
		}
		if r, ok := parseRelease(s[i:j]); ok && !slices.Contains(found, r) {
			found = append(found, r)
		}
		i = j
	}
	slices.SortFunc(found, release.compare)
	return found
}

// platformOf returns the platform named by the last platform token: the
// test part of a name comes after the org and repo, which may name a
// platform too (cluster-api-provider-aws).
func platformOf(tokens []string) string {
	platform := ""
	for _, t := range tokens {
		if p := platformToken(t); p != "" {
			platform = p
		}
	}
	return platform
}

func platformToken(t string) string {
	switch t {
	case "aws", "gcp", "ovirt", "nutanix", "ibmcloud", "alibaba", "libvirt", "powervs", "kubevirt", "rosa", "openstack":
		return t
	case "metal", "baremetal", "baremetalds", "metal3":
		return "metal"
	case "aks":
		return "azure"
	}
	switch {
	case strings.HasPrefix(t, "azure"): // azure, azurestack
		return "azure"
	case strings.HasPrefix(t, "vsphere"): // vsphere, vsphere8
		return "vsphere"
	}
	return ""
}

// networkOf returns "ovn" or "sdn" when a token names the network plugin.
// OVN wins when both appear (SDN-to-OVN migration jobs end on OVN).
func networkOf(tokens []string) string {
	hasPrefix := func(p string) bool {
		return slices.ContainsFunc(tokens, func(t string) bool { return strings.HasPrefix(t, p) })
	}
	switch {
	case hasPrefix("ovn"):
		return "ovn"
	case hasPrefix("sdn"):
		return "sdn"
	}
	return ""
}

// archOf returns the CPU architecture a job name asks for. A single
// architecture is checked before "multi" because multi-arch payload jobs
// that run one architecture end in "multi-a-a" (arm64 control plane and
// workers), "multi-p-p" or "multi-z-z".
func archOf(tokens []string) string {
	for _, a := range []struct{ arch, token, letter string }{
		{"arm64", "arm64", "a"},
		{"arm64", "aarch64", "a"},
		{"arm64", "arm", "a"},
		{"ppc64le", "ppc64le", "p"},
		{"s390x", "s390x", "z"},
	} {
		for i, t := range tokens {
			if t == a.token || (t == "multi" && i+2 < len(tokens) && tokens[i+1] == a.letter && tokens[i+2] == a.letter) {
				return a.arch
			}
		}
	}
	for i, t := range tokens {
		switch t {
		case "heterogeneous":
			return "multi"
		case "multi":
			// multi-network, multi-vcenter, multi-zone... are not about CPUs.
			if i+1 == len(tokens) || !slices.Contains([]string{"network", "vcenter", "zone", "nic", "disk", "subnet", "subnets"}, tokens[i+1]) {
				return "multi"
			}
		case "multiarch":
			// openshift-multiarch is the repository of single-arch jobs too.
			if i == 0 || tokens[i-1] != "openshift" {
				return "multi"
			}
		}
	}
	return "amd64"
}

// jobTypeOf reads the job type from the prefix Prow job generators use.
func jobTypeOf(lower string) string {
	has := func(prefixes ...string) bool {
		return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(lower, p) })
	}
	switch {
	case has("pull-", "rehearse-"):
		return "presubmit"
	case has("branch-ci-"):
		return "postsubmit"
	// release-openshift-* are the template-era periodics the release
	// controller started; aggregated-* are the aggregators it starts today.
	case has("periodic-", "release-openshift-", "aggregated-"):
		return "periodic"
	}
	return ""
}
