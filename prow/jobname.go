package prow

import (
	"slices"
	"strings"
)

// Variants are what a job name says about the runs of the job: the
// job-name variants contract of the design, derived as Sippy's variant
// registry (openshift/sippy pkg/variantregistry/ocp.go) derives them, except
// where it is demonstrably wrong; each such place says so below, and the
// real-name table of the tests names the jobs it concerns.
type Variants struct {
	// Release is the highest X.Y in the name; FromRelease the lowest (the
	// same for a z-stream upgrade or a job with one version). Both are
	// empty when the name holds no version.
	Release, FromRelease string
	// Upgrade is UpgradeNone without "upgrade" in the name, else
	// UpgradeMicroDowngrade for -upgrade-out-of-change, else UpgradeMicro,
	// UpgradeMinor, UpgradeMulti or UpgradeMajor from the versions in it,
	// or "" for an upgrade job whose name holds no version (2019-2020
	// names): the run's clusterversion decides then.
	Upgrade string
	// Platform is where the cluster runs: aws, gcp, azure, metal, vsphere,
	// openstack, ovirt, nutanix, ibmcloud, alibaba, libvirt, powervs,
	// rosa, kubevirt...; "" when the name does not say.
	Platform string
	// Network is "ovn", "sdn" or "cilium" from the name, else the default
	// of the release the cluster was installed with (FromRelease):
	// OVN-Kubernetes from 4.12, openshift-sdn before; "" when the name
	// holds no version either (the run's versions decide, DefaultNetwork).
	Network string
	// Arch is amd64 unless the name says arm64, ppc64le, s390x or multi.
	Arch string
	// Topology is TopologyHA unless the name says single, compact,
	// two-node-arbiter, two-node-fencing or external (hosted control
	// planes).
	Topology string
	// Type is presubmit, postsubmit or periodic when the name's prefix
	// says, else "".
	Type string
	// Stack is the cluster network's address families, as Sippy's
	// NetworkStack variant says them: StackDual for -dualstack, StackIPv6
	// for -ipv6, else StackIPv4.
	Stack string
}

// Network stacks, the values of Variants.Stack and Networks.Stack.
const (
	StackIPv4 = "ipv4"
	StackIPv6 = "ipv6"
	StackDual = "dual"
)

// Topologies, the values of Variants.Topology.
const (
	TopologyHA             = "ha"
	TopologySingle         = "single"
	TopologyCompact        = "compact"
	TopologyTwoNodeArbiter = "two-node-arbiter"
	TopologyTwoNodeFencing = "two-node-fencing"
	TopologyExternal       = "external" // HyperShift hosted control planes
)

// ParseJobName derives the variants of a Prow job name such as
// "periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade".
func ParseJobName(name string) Variants {
	lower := strings.ToLower(strings.TrimSpace(name))
	tokens := strings.FieldsFunc(lower, func(r rune) bool { return r == '-' || r == '_' })
	v := Variants{
		Platform: platformOf(tokens),
		Arch:     archOf(tokens),
		Topology: topologyOf(tokens),
		Type:     jobTypeOf(lower),
		Stack:    stackOf(tokens),
	}
	releases := releasesIn(lower)
	if len(releases) > 0 {
		v.Release = releases[len(releases)-1].String()
		v.FromRelease = releases[0].String()
	}
	v.Network = networkOf(tokens)
	if v.Network == "" {
		v.Network = DefaultNetwork(v.FromRelease)
	}
	switch {
	case !strings.Contains(lower, "upgrade"):
		v.Upgrade = UpgradeNone
	case strings.Contains(lower, "-upgrade-out-of-change"):
		v.Upgrade = UpgradeMicroDowngrade
	case len(releases) == 0:
		v.Upgrade = ""
	// Sippy classifies by the versions only when the name matches
	// -X.Y-.*-.*-X.Y (three dashes between them): "-4.2-to-4.3" and
	// "-4.4-to-4.5" have two and become micro there, though they name two
	// releases one minor apart. The versions decide here, however they
	// are joined.
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

// DefaultNetwork is the network plugin a cluster installed with release
// X.Y has when the job does not choose one: OVN-Kubernetes from 4.12,
// openshift-sdn before; "" when release is not X.Y. An upgrade keeps the
// plugin it was installed with, so for an upgrade this is the default of
// the release it started from (Sippy looks at FromRelease too).
func DefaultNetwork(release string) string {
	r, ok := parseRelease(release)
	if !ok {
		return ""
	}
	if r.compare(release412) >= 0 {
		return "ovn"
	}
	return "sdn"
}

// release412 is the first release installed with OVN-Kubernetes by default.
var release412 = release{4, 12}

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

// platforms are the platform words in the order Sippy tries them: the first
// that a token of the name names wins, so that ROSA and OSD (managed
// offerings Sippy keeps apart) win over the cloud under them, and a word
// that names a workload loses to the cloud it runs on: kubevirt, last,
// counts only when no cloud is named (cnv-...-upgrade-azure-kubevirt-ovn
// runs KubeVirt on an Azure cluster). Sippy matches substrings ("-metal"
// misses "baremetalds", the metal jobs of the QE repository, and it knows
// no powervs or ibmcloud); tokens are matched here.
var platforms = []struct {
	platform string
	tokens   []string
}{
	{"rosa", []string{"rosa"}},
	{"osd-gcp", []string{"osd-ccs-gcp"}}, // the three tokens osd, ccs, gcp: see platformOf
	{"aws", []string{"aws"}},
	{"alibaba", []string{"alibaba", "alibabacloud"}},
	{"azure", []string{"azure", "azurestack", "aks"}},
	{"gcp", []string{"gcp"}},
	{"libvirt", []string{"libvirt"}},
	{"metal", []string{"metal", "baremetal", "baremetalds", "metal3"}},
	{"nutanix", []string{"nutanix"}},
	{"openstack", []string{"openstack"}},
	{"ovirt", []string{"ovirt"}},
	{"vsphere", []string{"vsphere", "vsphere8"}},
	{"powervs", []string{"powervs"}},
	{"ibmcloud", []string{"ibmcloud"}},
	{"kubevirt", []string{"kubevirt"}},
}

// platformOf returns the first platform of platforms that a token names.
func platformOf(tokens []string) string {
	for i := 0; i+2 < len(tokens); i++ {
		if tokens[i] == "osd" && tokens[i+1] == "ccs" && tokens[i+2] == "gcp" {
			tokens = append(slices.Clone(tokens), "osd-ccs-gcp")
			break
		}
	}
	for _, p := range platforms {
		if slices.ContainsFunc(tokens, func(t string) bool { return slices.Contains(p.tokens, t) }) {
			return p.platform
		}
	}
	return ""
}

// networkOf returns "ovn", "sdn" or "cilium" when a token names the network
// plugin. OVN wins when both OVN and SDN appear (SDN-to-OVN migration jobs
// end on OVN), as in Sippy.
func networkOf(tokens []string) string {
	hasPrefix := func(p string) bool {
		return slices.ContainsFunc(tokens, func(t string) bool { return strings.HasPrefix(t, p) })
	}
	switch {
	case hasPrefix("ovn"):
		return "ovn"
	case hasPrefix("sdn"):
		return "sdn"
	case hasPrefix("cilium"):
		return "cilium"
	}
	return ""
}

// stackOf returns the network stack a job name asks for: dual-stack names
// say "dualstack" (also "dualstack-primaryv6"), IPv6 single-stack names
// "ipv6".
func stackOf(tokens []string) string {
	switch {
	case slices.ContainsFunc(tokens, func(t string) bool { return strings.HasPrefix(t, "dualstack") }):
		return StackDual
	case slices.Contains(tokens, "ipv6"):
		return StackIPv6
	}
	return StackIPv4
}

// topologyOf returns the cluster topology a job name asks for, trying the
// words in Sippy's order. Sippy matches "-sno-" only with a dash after it,
// so a name ending in "-sno" is HA there; it is single here. MicroShift
// (Sippy's "microshift" topology) is one node: single here, so that the
// pod-network symptom, which needs two nodes, is never counted on it.
func topologyOf(tokens []string) string {
	for i, t := range tokens {
		next := func(words ...string) bool {
			for j, w := range words {
				if i+1+j >= len(tokens) || tokens[i+1+j] != w {
					return false
				}
			}
			return true
		}
		switch {
		case t == "sno", t == "single" && next("node"):
			return TopologySingle
		case t == "tna", t == "two" && next("node", "arbiter"):
			return TopologyTwoNodeArbiter
		case t == "tnf", t == "two" && next("node", "fencing"):
			return TopologyTwoNodeFencing
		}
	}
	for _, t := range tokens {
		switch t {
		case "hypershift", "hcp":
			return TopologyExternal
		}
	}
	for _, t := range tokens {
		switch t {
		case "compact":
			return TopologyCompact
		case "microshift":
			return TopologySingle
		}
	}
	return TopologyHA
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
