package analyze

import "math"

// z95 is the standard normal quantile of a two-sided 95 % interval.
const z95 = 1.959963984540054

// Wilson is the 95 % Wilson score interval of a rate of hits in runs: unlike
// the normal approximation it stays inside [0, 1] and is honest for small
// samples and rates near 0 or 1 (3 of 14 is 8 % to 48 %). Both are NaN
// without runs.
func Wilson(hits, runs int) (lo, hi float64) {
	if runs <= 0 || hits < 0 || hits > runs {
		return math.NaN(), math.NaN()
	}
	n, p := float64(runs), float64(hits)/float64(runs)
	z2 := z95 * z95
	center := (p + z2/(2*n)) / (1 + z2/n)
	half := z95 / (1 + z2/n) * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	lo, hi = math.Max(0, center-half), math.Min(1, center+half)
	if hits == 0 {
		lo = 0
	}
	if hits == runs {
		hi = 1
	}
	return lo, hi
}
