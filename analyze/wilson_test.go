package analyze

import (
	"math"
	"testing"
)

// TestWilson checks the interval against values computed independently
// (the score formula evaluated by hand; R's prop.test(x, n, correct = FALSE) gives the same).
func TestWilson(t *testing.T) {
	for _, c := range []struct {
		hits, runs int
		lo, hi     float64
	}{
		{0, 10, 0, 0.2775},
		{3, 14, 0.0757, 0.4759},
		{6, 14, 0.2138, 0.6741},
		{10, 10, 0.7225, 1},
		{50, 100, 0.4038, 0.5962},
		{1, 2, 0.0945, 0.9055},
	} {
		lo, hi := Wilson(c.hits, c.runs)
		if math.Abs(lo-c.lo) > 5e-4 || math.Abs(hi-c.hi) > 5e-4 {
			t.Errorf("Wilson(%d, %d) = %.4f..%.4f, want %.4f..%.4f", c.hits, c.runs, lo, hi, c.lo, c.hi)
		}
	}
	if lo, hi := Wilson(0, 0); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("no runs: %v..%v, want NaN", lo, hi)
	}
}
