package analyze

import (
	"cmp"
	"math"
	"slices"

	"github.com/openshift-eng/prowcrawl/db"
)

// VerdictOrder is the order verdicts are listed in: what to act on first.
var VerdictOrder = []string{
	VerdictRegression,
	VerdictNew,
	VerdictPersistent,
	VerdictFlake,
	VerdictImproved,
	VerdictNone,
	VerdictInsufficient,
}

// VerdictRank is v's place in VerdictOrder; an unknown verdict comes last.
func VerdictRank(v string) int {
	if i := slices.Index(VerdictOrder, v); i >= 0 {
		return i
	}
	return len(VerdictOrder)
}

// SortVerdicts orders verdicts as a report lists them: by verdict
// (regressions first), then the strongest evidence (the smallest p), the
// highest sample rate, and then by name, so that the order is total and
// stable.
func SortVerdicts(rows []db.SymptomVerdict) {
	slices.SortFunc(rows, func(a, b db.SymptomVerdict) int {
		return cmp.Or(
			cmp.Compare(VerdictRank(a.Verdict), VerdictRank(b.Verdict)),
			CompareNaNLast(a.P, b.P),
			-CompareNaNLast(a.SampleRate, b.SampleRate),
			cmp.Compare(a.Symptom, b.Symptom),
			cmp.Compare(a.Scope, b.Scope),
			cmp.Compare(a.Key, b.Key),
			cmp.Compare(a.Comparison, b.Comparison),
		)
	})
}

// CompareNaNLast compares floats, with NaN after every number.
func CompareNaNLast(a, b float64) int {
	switch an, bn := math.IsNaN(a), math.IsNaN(b); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmp.Compare(a, b)
}
