package analyze

import (
	"math"
	"slices"
)

// Distribution summarises the disruption of a set of runs, in seconds per
// run: how many, the median, the 95th percentile and the worst.
type Distribution struct {
	Runs             int
	Median, P95, Max float64
	sorted           []float64
}

// Percentile is the q-quantile (0 <= q <= 1) of sorted values, interpolated
// linearly between the two closest ranks (the "type 7" definition of
// Hyndman and Fan, which numpy, R and BigQuery's PERCENTILE_CONT use): rank
// h = (n-1)q, between values[floor h] and values[floor h + 1]. NaN for no
// values.
func Percentile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 || q < 0 || q > 1 {
		return math.NaN()
	}
	h := float64(n-1) * q
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}

// Distribute computes the distribution of values (any order; NaN values,
// runs whose files gave no duration, are left out). It keeps the values, in
// order, for charts.
func Distribute(values []float64) Distribution {
	s := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) {
			s = append(s, v)
		}
	}
	slices.Sort(s)
	d := Distribution{Runs: len(s), Median: math.NaN(), P95: math.NaN(), Max: math.NaN(), sorted: s}
	if len(s) > 0 {
		d.Median, d.P95, d.Max = Percentile(s, 0.5), Percentile(s, 0.95), s[len(s)-1]
	}
	return d
}

// Sorted are the values of the distribution in increasing order.
func (d Distribution) Sorted() []float64 { return d.sorted }
