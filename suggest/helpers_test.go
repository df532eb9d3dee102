package suggest

import (
	"reflect"
	"testing"
)

// propose adds texts to a Collector of runs and asks it for top proposals
// (0: all).
func propose(t *testing.T, runs []Run, texts []Text, opts Options, top int) Result {
	t.Helper()
	col := New(runs, opts)
	for _, tx := range texts {
		col.Add(tx)
	}
	res, err := col.Propose(top)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// coversExactly says whether some proposal of res covers exactly the runs
// of want, by build id.
func coversExactly(res Result, want map[int64]bool) bool {
	for _, p := range res.Proposals {
		got := map[int64]bool{}
		for _, ref := range p.Runs {
			got[ref.BuildID] = true
		}
		if reflect.DeepEqual(got, want) {
			return true
		}
	}
	return false
}

// logProposals logs each proposal: its id, its runs and its pattern.
func logProposals(t *testing.T, res Result) {
	t.Helper()
	for _, p := range res.Proposals {
		t.Logf("%s: %d runs: %s", p.ID, len(p.Runs), p.Pattern)
	}
}
