package db

import (
	"fmt"
	"testing"
)

// TestFlakeRatesBounded: test_flake_rates keeps only the tests that failed
// or flaked at least once in their scope key, so that it grows with the
// failures it summarises and not with every test times every scope key.
// Before, a run of a million passing tests gave three million rows (about
// 1.4 GB with its indexes). A wrong row is still refused.
func TestFlakeRatesBounded(t *testing.T) {
	ctx := t.Context()
	d := openTest(t)
	var rates []TestFlakeRate
	for i := range 300 {
		for _, scope := range []string{ScopeJob, ScopeEdge, ScopeVariant} {
			r := TestFlakeRate{Scope: scope, Key: "k", Suite: "openshift-tests", Name: fmt.Sprintf("[sig-arch] test %d", i), Runs: 4}
			switch i % 100 {
			case 1:
				r.Failures = 1
			case 2:
				r.Flakes, r.FlakeRate = 2, 0.5
			}
			rates = append(rates, r)
		}
	}
	if err := d.ReplaceAnalysis(ctx, nil, rates); err != nil {
		t.Fatal(err)
	}
	if n := count(t, d, "test_flake_rates"); n != 3*6 {
		t.Errorf("%d rows of test_flake_rates, want %d: the tests that failed or flaked, in each of 3 scopes", n, 3*6)
	}
	got := queryStrings(t, d.db, `SELECT count(*) FROM test_flake_rates WHERE failures = 0 AND flakes = 0`)
	if got[0] != "0" {
		t.Errorf("%s rows of tests that never failed", got[0])
	}
	for name, bad := range map[string]TestFlakeRate{
		"no runs":        {Scope: ScopeJob, Key: "j", Suite: "s", Name: "a"},
		"no scope":       {Key: "j", Suite: "s", Name: "a", Runs: 2},
		"an unknown one": {Scope: "suite", Key: "j", Suite: "s", Name: "a", Runs: 2},
	} {
		if err := d.ReplaceAnalysis(ctx, nil, []TestFlakeRate{bad}); err == nil {
			t.Errorf("%s: ReplaceAnalysis accepted %+v", name, bad)
		}
	}
}
