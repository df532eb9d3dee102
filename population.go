package prowcrawl

import (
	"fmt"
	"slices"
	"strings"
)

// RuleVersion names one version of a classification rule: its id and the
// hash of what it reads and matches (classify.Rule.Hash). A run records
// the versions that evaluated it, matched or not: the denominator of each
// rule's rates.
type RuleVersion struct {
	ID, Hash string
}

// Reach says which runs a rule applies to, by the cluster topology of the
// job (prow.Variants.Topology): a rule limited to some topologies never
// counts a run of another, not even as a run that does not show it.
type Reach struct {
	// Topology, when set, limits the rule to runs of those topologies;
	// NotTopology keeps it off runs of those.
	Topology, NotTopology []string
}

// AppliesTo says whether a rule of this reach applies to a run of
// topology; an unknown topology ("") is in every rule's reach.
func (r Reach) AppliesTo(topology string) bool {
	switch {
	case topology == "":
		return true
	case slices.Contains(r.NotTopology, topology):
		return false
	case len(r.Topology) > 0:
		return slices.Contains(r.Topology, topology)
	}
	return true
}

// Population is why a run is, or is not, a counted run of a rule: the one
// definition that every rate, count, view and export uses (the SQL view
// v_counted_runs says the same).
type Population string

// The populations, in the order they are decided: the first that holds is
// the run's.
const (
	// Unfinished: aborted or still running (pending); never counted.
	Unfinished Population = "unfinished"
	// AggregatedJob: a run of an aggregated job (aggregated-*, the release
	// analysis aggregator) summarises runs counted already; never counted.
	AggregatedJob Population = "aggregated"
	// Infrastructure: the run failed for a reason of CI's, not the
	// product's (Sippy's overall result N or n, its InfraFailure): counted
	// apart, before its upgrade is asked about (an install that found no
	// cloud lease never began its upgrade either).
	Infrastructure Population = "infrastructure"
	// NotStarted: the upgrade never began (install failed, or the cluster
	// version operator never acknowledged it); counted apart.
	NotStarted Population = "upgrade not started"
	// OutOfReach: the rule does not apply to the run's topology
	// (pod-network-cross-node on a single-node cluster).
	OutOfReach Population = "rule does not apply"
	// NotClassified: the rule's current version has not read the run; a
	// reclassify (or backfill --refetch) evaluates it.
	NotClassified Population = "not classified yet"
	// Counted: in the rule's denominator (in a presubmit scope for a
	// presubmit job, in the release scopes otherwise).
	Counted Population = "counted"
)

// Finished says whether a run of this result counts at all: success,
// failure or error, not aborted or pending.
func Finished(result Result) bool {
	switch result {
	case ResultSuccess, ResultFailure, ResultError:
		return true
	}
	return false
}

// IsAggregated says whether job is an aggregated job: the release
// analysis aggregator's, whose runs summarise other runs (Sippy's
// aggregated variant, out of every rate).
func IsAggregated(job string) bool { return strings.HasPrefix(job, "aggregated-") }

// RunFacts are what the population of a run depends on.
type RunFacts struct {
	Job    string
	Result Result
	// UpgradeStarted is false only when the run is known not to have
	// begun its upgrade; unknown counts as begun.
	UpgradeStarted *bool
	Topology       string
	// Overall is the run's overall result (empty: not derived yet).
	Overall OverallResult
	// Evaluated are the rule versions that last classified the run.
	Evaluated []RuleVersion
}

// PopulationOf is the population of a run for the current version of a
// rule of the given reach.
func PopulationOf(run RunFacts, rule RuleVersion, reach Reach) Population {
	switch p := RunPopulation(run); {
	case p != Counted:
		return p
	case !reach.AppliesTo(run.Topology):
		return OutOfReach
	case !slices.Contains(run.Evaluated, rule):
		return NotClassified
	}
	return Counted
}

// RunPopulation is the part of a run's population that no rule changes:
// Unfinished, AggregatedJob, Infrastructure, NotStarted, or Counted when
// the run is in the rates of every rule whose reach holds it.
func RunPopulation(run RunFacts) Population {
	switch {
	case !Finished(run.Result):
		return Unfinished
	case IsAggregated(run.Job):
		return AggregatedJob
	case run.Overall.Infrastructure():
		return Infrastructure
	case run.UpgradeStarted != nil && !*run.UpgradeStarted:
		return NotStarted
	}
	return Counted
}

// LeftOut says, in one sentence, how many runs a page left out of every
// rate and why: the runs of each population of RunPopulation but Counted.
// Every page that prints rates prints it.
func LeftOut(runs map[Population]int) string {
	return fmt.Sprintf("Left out of every rate: %d whose upgrade never began, %d infrastructure failures (Sippy's N, n), "+
		"%d of aggregated jobs (they summarise other runs), %d unfinished (aborted or pending).",
		runs[NotStarted], runs[Infrastructure], runs[AggregatedJob], runs[Unfinished])
}

// LeftOutWhy says why the finished runs a rate left out were left out,
// given how many there were and how many of them were infrastructure
// failures (the others' upgrade never began).
func LeftOutWhy(leftOut, infra int) string {
	switch {
	case infra == 0:
		return "their upgrade never began"
	case infra >= leftOut:
		return "infrastructure failures (Sippy's N, n)"
	}
	return fmt.Sprintf("%d infrastructure failures (Sippy's N, n), %d whose upgrade never began", infra, leftOut-infra)
}

// RuleSetDigest is the canonical name of a set of rule versions: the
// versions sorted by id, "id=hash" joined by commas. Runs classified by the
// same rules share one stored rule set.
func RuleSetDigest(rules []RuleVersion) string {
	s := slices.Clone(rules)
	slices.SortFunc(s, func(a, b RuleVersion) int {
		return strings.Compare(a.ID+"="+a.Hash, b.ID+"="+b.Hash)
	})
	s = slices.Compact(s)
	parts := make([]string, len(s))
	for i, r := range s {
		parts[i] = r.ID + "=" + r.Hash
	}
	return strings.Join(parts, ",")
}

// CountedLine says, in one line, what every rate and count of a symptom
// counts: each command that prints such a count prints it.
const CountedLine = "Counted: finished runs whose upgrade began, not infrastructure failures nor aggregated, in the rule's reach, " +
	"read by its current version (presubmits apart)."
