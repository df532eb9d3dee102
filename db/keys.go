package db

import "github.com/openshift-eng/prowcrawl"

// The edge and variant keys are the root package's; these aliases keep
// callers building while they move to it.
type (
	Edge    = prowcrawl.Edge
	Variant = prowcrawl.Variant
)

// RunKeys is prowcrawl.RunKeys.
func RunKeys(j Job, release, fromRelease, upgrade string) (Edge, Variant) {
	return prowcrawl.RunKeys(j, release, fromRelease, upgrade)
}

// TypePresubmit is prowcrawl.TypePresubmit.
const TypePresubmit = prowcrawl.TypePresubmit
