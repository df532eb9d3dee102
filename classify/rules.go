package classify

import (
	"net/netip"
	"time"

	"github.com/openshift-eng/prowcrawl/prow"
)

// Rule is one symptom: what it is and how to recognize it in a run.
type Rule struct {
	// ID names the symptom in the database: lower-case letters, digits and
	// dashes, unique.
	ID string
	// Title is one line for reports; Description says what the symptom
	// means; Bug is the URL of a bug that describes it, or empty.
	Title, Description, Bug string
	// Source is "builtin" or the name of the rules file the rule came from.
	Source string
	// Files are globs, relative to the run directory, of the objects the
	// rule reads: "*" within a path segment, "**" across segments, "?" one
	// character, "[a-z]" a class, "{a,b}" alternatives.
	Files []string
	// Match lists the matchers; the symptom is present when any matches.
	Match []Matcher
	// Disabled marks a rules-file entry {id: ID, disabled: true}: it has
	// no files and no matchers, and turns off the rule of that id that it
	// is merged over (a built-in symptom). An engine skips it.
	Disabled bool
	// Topology, when set, limits the rule to runs of those cluster
	// topologies; NotTopology keeps it off runs of those (the
	// pod-network-cross-node symptom needs two nodes: not on single). A run
	// whose topology is unknown is matched either way.
	Topology, NotTopology []string
}

// topologies are the values of Topology and NotTopology: the job-name
// topologies of the design.
var topologies = []string{prow.TopologyHA, prow.TopologySingle, prow.TopologyCompact,
	prow.TopologyTwoNodeArbiter, prow.TopologyTwoNodeFencing, prow.TopologyExternal}

// appliesTo says whether the rule is to be matched on a run of topology
// (empty: unknown, which every rule applies to).
func (r *Rule) appliesTo(topology string) bool {
	return r.Reach().AppliesTo(topology)
}

// Matcher is one entry of a rule's match list. Exactly one field is set.
type Matcher struct {
	Lines      *LinesMatcher
	Events     *EventsMatcher
	JUnit      *JUnitMatcher
	Upgrade    *UpgradeMatcher
	Disruption *DisruptionMatcher
	Sequence   *SequenceMatcher
}

// LinesMatcher matches text lines of the files, and the items of events
// files rendered as "<locator> <message>". A line counts when it matches one
// of Any (when Any is set), every one of All and none of Not.
type LinesMatcher struct {
	Any, All, Not []string
	// Min is how many lines must count; 0 means 1.
	Min int
	// CIDR, when set, requires the group named "ip" of the matching Any
	// regex to hold an address inside one of these networks.
	CIDR []netip.Prefix
	// ClusterCIDR (`cidr: [cluster]` in a rules file) adds the run's own
	// cluster networks to CIDR, IPv4 and IPv6 (RunInfo.ClusterNetworks),
	// or DefaultClusterNetwork when the run does not say what they are.
	ClusterCIDR bool `json:",omitempty"`
}

// DefaultClusterNetwork is the cluster network an OpenShift cluster is
// installed with unless told otherwise: the pod network of a run that does
// not say what its own is.
var DefaultClusterNetwork = netip.MustParsePrefix("10.128.0.0/14")

// EventsMatcher matches the items of events, intervals and timelines JSON
// files. Each set regex must match its field.
type EventsMatcher struct {
	Message, Locator, Reason string
	// Min is how many items must match; 0 means 1.
	Min int
}

// JUnitMatcher matches the run's merged test results by name and status.
type JUnitMatcher struct {
	Name string
	// Status lists the statuses that count; empty means [fail].
	Status []prow.TestStatus
}

// UpgradeMatcher matches the state of the newest clusterversion history
// entry.
type UpgradeMatcher struct {
	// State is "Completed" or "Partial".
	State string
}

// DisruptionMatcher matches the entries of backend-disruption files.
type DisruptionMatcher struct {
	// Backend, when set, must match the entry's Name or BackendName.
	Backend string
	// Min is the least disrupted time that counts; 0 means any above zero.
	Min time.Duration
}

// SequenceMatcher matches a timed event matching First followed, no later
// than Within, by one matching Then.
type SequenceMatcher struct {
	First, Then string
	Within      time.Duration
	// Different is "", "namespace" or "node": when set, the Then event must
	// be in another namespace (node) than the First event, and both must
	// name one.
	Different string
}

// Values of SequenceMatcher.Different.
const (
	DifferentNamespace = "namespace"
	DifferentNode      = "node"
)

// BuiltinSource is the Source of the built-in rules.
const BuiltinSource = "builtin"

// Merge returns base with over applied: a rule of over replaces the rule of
// base with its id, in its place, and the other rules of over follow base's
// in their order. A disabled rule of over removes the rule of its id; one
// that names no rule of base is dropped (Unknown finds those). The result
// holds no disabled rule.
func Merge(base, over []Rule) []Rule {
	out := make([]Rule, 0, len(base)+len(over))
	pos := make(map[string]int, len(base))
	for _, rules := range [][]Rule{base, over} {
		for _, r := range rules {
			if i, ok := pos[r.ID]; ok {
				out[i] = r
				continue
			}
			pos[r.ID] = len(out)
			out = append(out, r)
		}
	}
	kept := out[:0]
	for _, r := range out {
		if !r.Disabled {
			kept = append(kept, r)
		}
	}
	return kept
}

// Unknown returns the ids of the disabled rules of over that name no rule of
// base, in their order: an entry that turns off a symptom that does not
// exist is most likely a typo.
func Unknown(base, over []Rule) []string {
	known := make(map[string]bool, len(base))
	for _, r := range base {
		known[r.ID] = true
	}
	var out []string
	for _, r := range over {
		if r.Disabled && !known[r.ID] {
			out = append(out, r.ID)
		}
	}
	return out
}
