package prowcrawl

import "github.com/openshift-eng/prowcrawl/prow"

// The edge and variant keys are defined here once: RunKeys, from Edge.String
// and Variant.String. The database's writer stores them in runs.edge and
// runs.variant, which the views and analysts' queries read; analyze computes
// them with the same function from the groups of runs it counts; the Go step
// of the database's migration 0005 fills them for the runs stored before.
// SQL never computes a key.

// JobFromName is a job from its name alone: the job-name variants of
// prow.ParseJobName. presubmit says that the job's runs were found under
// pr-logs/, which makes it a presubmit whatever its name.
func JobFromName(name string, presubmit bool) Job {
	v := prow.ParseJobName(name)
	j := Job{Name: name, Type: v.Type, Release: v.Release, FromRelease: v.FromRelease, Upgrade: v.Upgrade,
		Platform: v.Platform, Network: v.Network, Arch: v.Arch, Topology: v.Topology, Stack: v.Stack}
	if presubmit {
		j.Type = TypePresubmit
	}
	return j
}

// Edge is an upgrade edge: the release a run starts from, the release it
// ends on, and the upgrade kind (micro, minor, multi, major, none; empty when
// unknown). From is empty when the run does not say, and equal to To for a
// z-stream.
type Edge struct {
	From, To, Kind string
}

// String is the edge's scope key: "4.13->4.14 minor", or "4.14 micro" when
// the run starts and ends in one release (or does not say where it started);
// an unknown kind is "-". It is empty when To is.
func (e Edge) String() string {
	if e.To == "" {
		return ""
	}
	kind := dash(e.Kind)
	if e.From == "" || e.From == e.To {
		return e.To + " " + kind
	}
	return e.From + "->" + e.To + " " + kind
}

// Variant is an edge on one platform, network, arch and topology (each
// empty when unknown).
type Variant struct {
	Edge
	Platform, Network, Arch, Topology string
	// Stack is the network stack: ipv4 (or empty), ipv6 or dual.
	Stack string
}

// String is the variant's scope key: the edge, then platform, network, arch
// and topology, "-" for each that is unknown, then the network stack
// unless it is IPv4: "4.13->4.14 minor aws ovn amd64 ha", "4.16->4.17
// minor metal ovn amd64 ha ipv6".
func (v Variant) String() string {
	if v.Edge.String() == "" {
		return ""
	}
	key := v.Edge.String() + " " + dash(v.Platform) + " " + dash(v.Network) + " " + dash(v.Arch) + " " + dash(v.Topology)
	// IPv4, the stack of nearly every job, is left unsaid, so that the
	// keys of IPv4 variants stay as they were before the stack was a
	// variant.
	if v.Stack != "" && v.Stack != prow.StackIPv4 {
		key += " " + v.Stack
	}
	return key
}

// EdgeOfRun is the upgrade edge of run, a run of job j: the job name's
// when it names one, else (old names without a version) from the
// cluster's versions, or the release controller's tags when the cluster
// said none. It is what the crawler stores as the run's release,
// from_release and upgrade, from which RunKeys are keyed.
func EdgeOfRun(j Job, run Run) Edge {
	if j.Release != "" {
		return Edge{From: j.FromRelease, To: j.Release, Kind: j.Upgrade}
	}
	to, from := run.ToVersion, run.FromVersion
	if to == "" {
		to, from = run.Tag, run.FromTag
	}
	release := prow.ReleaseOf(to)
	if j.Upgrade == "none" {
		return Edge{From: release, To: release, Kind: "none"}
	}
	return Edge{From: prow.ReleaseOf(from), To: release, Kind: prow.UpgradeKind(from, to)}
}

// RunKeys are the edge and variant keys of a run of job j whose edge is
// release, fromRelease and upgrade (the run's own: from the job name, or for
// an old name without a version from the cluster's versions). Both are
// empty for a presubmit, which tests a pull request's code and counts only
// in the presubmit scope, and for a run whose release is unknown. The
// variant's network is the job's, else the default of the release the
// cluster was installed with (fromRelease, else release).
func RunKeys(j Job, release, fromRelease, upgrade string) (Edge, Variant) {
	if j.Type == TypePresubmit || release == "" {
		return Edge{}, Variant{}
	}
	e := Edge{From: fromRelease, To: release, Kind: upgrade}
	network := j.Network
	if network == "" {
		installed := fromRelease
		if installed == "" {
			installed = release
		}
		network = prow.DefaultNetwork(installed)
	}
	return e, Variant{Edge: e, Platform: j.Platform, Network: network, Arch: j.Arch, Topology: j.Topology, Stack: j.Stack}
}

// dash is s, or "-" when it is empty (NULL in the database).
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
