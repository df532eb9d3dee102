package analyze

import (
	"math"
	"testing"
)

// TestDistribute checks the median, P95 and worst against references
// computed by hand with the rank h = (n-1)q.
func TestDistribute(t *testing.T) {
	tests := []struct {
		name             string
		values           []float64
		runs             int
		median, p95, max float64
	}{
		// One run: every statistic is its value.
		{"one run", []float64{7}, 1, 7, 7, 7},
		// All zeros: nothing was disrupted.
		{"zeros", []float64{0, 0, 0, 0}, 4, 0, 0, 0},
		// h(0.5) = 1.5: (2+3)/2; h(0.95) = 2.85: 3 + 0.85(4-3).
		{"four, unsorted", []float64{4, 1, 3, 2}, 4, 2.5, 3.85, 4},
		// Ties: h(0.5) = 1.5 between 2 and 2; h(0.95) = 2.85: 2 + 0.85(5-2).
		{"ties", []float64{2, 5, 2, 2}, 4, 2, 4.55, 5},
		// Zeros and a tie at the top: h(0.5) = 2: 1; h(0.95) = 3.8: 10 + 0.8(10-10).
		{"zeros and a tie at the top", []float64{10, 0, 1, 0, 10}, 5, 1, 10, 10},
		// 21 runs 0..20: h(0.5) = 10; h(0.95) = 19: exactly rank 19.
		{"twenty-one", seq(21), 21, 10, 19, 20},
		// 20 runs 0..19: h(0.5) = 9.5; h(0.95) = 18.05.
		{"twenty", seq(20), 20, 9.5, 18.05, 19},
		// A run whose file gave no duration does not count.
		{"unknown left out", []float64{math.NaN(), 3, 1}, 2, 2, 2.9, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Distribute(tt.values)
			if d.Runs != tt.runs || !near(d.Median, tt.median) || !near(d.P95, tt.p95) || !near(d.Max, tt.max) {
				t.Errorf("Distribute(%v) = runs %d, median %v, p95 %v, max %v; want %d, %v, %v, %v",
					tt.values, d.Runs, d.Median, d.P95, d.Max, tt.runs, tt.median, tt.p95, tt.max)
			}
		})
	}
	if d := Distribute(nil); d.Runs != 0 || !math.IsNaN(d.Median) || !math.IsNaN(d.P95) || !math.IsNaN(d.Max) {
		t.Errorf("Distribute(nil) = %+v, want no runs and NaN", d)
	}
}

func seq(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i)
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
