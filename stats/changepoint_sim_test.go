//go:build !race

package stats

// The simulations measure the change point's coverage over hundreds of
// sequences of thousands of shuffles each: a few seconds, but minutes under
// the race detector, which has nothing to find in one goroutine's
// arithmetic. make test runs them on their own, without it.

import (
	"math/rand/v2"
	"testing"
)

// simulate is a sequence of payloads with 1 to 10 runs each (as CI runs an
// edge's payloads), the runs of the first change of them showing a symptom
// at rate before and the others at rate after.
func simulate(rng *rand.Rand, payloads, change int, before, after float64) []Point {
	pts := make([]Point, payloads)
	for i := range pts {
		pts[i].Runs = 1 + rng.IntN(10)
		rate := before
		if i >= change {
			rate = after
		}
		for range pts[i].Runs {
			if rng.Float64() < rate {
				pts[i].Hits++
			}
		}
	}
	return pts
}

// TestChangePointCoverage: a rate that steps from 0% to 30% at a known
// payload is found, significant, with the payload in its interval, in at
// least 95% of simulated sequences; a rate that stops (30% to 0%) is
// found as an end the same way; a constant rate gives no onset in at
// least 95%. The sequences are seeded: the shares are the same each run.
func TestChangePointCoverage(t *testing.T) {
	const sequences = 200
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name          string
		before, after float64
		d             Direction
	}{
		{"onset 0% to 30%", 0, 0.3, Up},
		{"onset 5% to 40%", 0.05, 0.4, Up},
		{"end 30% to 0%", 0.3, 0, Down},
	}
	for _, c := range cases {
		covered, found := 0, 0
		for s := range sequences {
			payloads := 20 + rng.IntN(21)
			change := 5 + rng.IntN(payloads-10)
			pts := simulate(rng, payloads, change, c.before, c.after)
			cp := FindChange(pts, c.d, uint64(s))
			if cp.P < ChangeAlpha {
				found++
				if cp.Lo <= change && change <= cp.Hi {
					covered++
				}
			}
		}
		t.Logf("%s: significant in %d of %d, interval holds the change in %d", c.name, found, sequences, covered)
		if covered < sequences*95/100 {
			t.Errorf("%s: the interval held the planted change in %d of %d sequences, want at least 95%%", c.name, covered, sequences)
		}
	}
	for _, rate := range []float64{0.1, 0.3} {
		none := 0
		for s := range sequences {
			pts := simulate(rng, 20+rng.IntN(21), 0, rate, rate)
			if cp := FindChange(pts, Up, uint64(s)); cp.P >= ChangeAlpha {
				none++
			}
		}
		t.Logf("constant %.0f%%: no onset in %d of %d", 100*rate, none, sequences)
		if none < sequences*95/100 {
			t.Errorf("constant rate %.0f%%: no onset in %d of %d sequences, want at least 95%%", 100*rate, none, sequences)
		}
	}
}
