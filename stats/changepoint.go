package stats

import (
	"math"
	"math/rand/v2"
)

// Point is one point of a sequence of binomial trials: how many runs a
// payload had, and how many of them showed a symptom.
type Point struct {
	Runs, Hits int
}

// Direction is the change a change point is looked for in.
type Direction int

// The directions: Up for an onset (the rate after the split is higher),
// Down for an end.
const (
	Up Direction = iota
	Down
)

// ChangePoint is the most likely split of a sequence into two rates.
type ChangePoint struct {
	// Split is the index of the first point after the change (1..len-1);
	// 0 when no split changes the rate in the direction asked.
	Split int
	// Lo and Hi bound the splits that hold the change with 95% confidence:
	// those whose likelihood is within IntervalDrop of the best.
	Lo, Hi int
	// RunsBefore, HitsBefore, RunsAfter and HitsAfter are the sums on each
	// side of Split.
	RunsBefore, HitsBefore, RunsAfter, HitsAfter int
	// LogLR is the log likelihood ratio of two rates split at Split against
	// one rate throughout.
	LogLR float64
	// P is the permutation test's p-value of LogLR: the share of the
	// sequences with the same runs and the hits shuffled among them whose
	// best split is as likely (see Permutations).
	P float64
}

// IntervalDrop is the drop in log likelihood from the best split that
// bounds the confidence interval of the change. A change point's
// likelihood ratio does not follow the chi-square law a fixed parameter's
// does (1.92 for 95%); the value is calibrated by simulation
// (TestChangePointCoverage) to hold the planted change in at least 95% of
// sequences.
const IntervalDrop = 3.0

// ChangeAlpha is the p-value below which a change is said to be one: an
// onset or an end named on a page is a claim someone acts on (reading a
// changelog, filling fixedIn), so it asks for stronger evidence than a
// verdict's 5%; a constant rate is then said to have none in 99% of edges.
const ChangeAlpha = 0.01

// Permutations is how many shuffles the p-value is estimated from, at
// most: the test stops once exceedances shuffles have split as well as the
// one seen (Besag and Clifford's sequential p-value, h/k), when the
// p-value is clearly above any threshold.
const (
	Permutations = 1999
	exceedances  = 50
)

// logLik is the binomial log likelihood of h hits in n runs at the rate
// h/n (0 log 0 = 0).
func logLik(h, n int) float64 {
	if n == 0 || h == 0 || h == n {
		return 0
	}
	p := float64(h) / float64(n)
	return float64(h)*math.Log(p) + float64(n-h)*math.Log1p(-p)
}

// best is the best split of the cumulative sums (runs[i], hits[i]: the
// sums of the points before i) in direction d, with its log likelihood
// ratio; split 0 when none.
func best(runs, hits []int, d Direction) (split int, llr float64) {
	m := len(runs) - 1
	n, h := runs[m], hits[m]
	base := logLik(h, n)
	for k := 1; k < m; k++ {
		nb, hb := runs[k], hits[k]
		na, ha := n-nb, h-hb
		if nb == 0 || na == 0 {
			continue
		}
		// The rates compared without division: ha/na > hb/nb.
		up := ha*nb > hb*na
		down := ha*nb < hb*na
		if d == Up && !up || d == Down && !down {
			continue
		}
		if l := logLik(hb, nb) + logLik(ha, na) - base; l > llr {
			split, llr = k, l
		}
	}
	return split, llr
}

// FindChange finds the most likely change of rate in direction d in pts,
// its 95% interval and its p-value, from Permutations shuffles of a
// generator seeded with seed (so that a page says the same each time).
func FindChange(pts []Point, d Direction, seed uint64) ChangePoint {
	runs, hits := make([]int, len(pts)+1), make([]int, len(pts)+1)
	for i, p := range pts {
		runs[i+1], hits[i+1] = runs[i]+p.Runs, hits[i]+p.Hits
	}
	m := len(pts)
	c := ChangePoint{P: 1}
	c.Split, c.LogLR = best(runs, hits, d)
	if c.Split == 0 {
		return c
	}
	c.RunsBefore, c.HitsBefore = runs[c.Split], hits[c.Split]
	c.RunsAfter, c.HitsAfter = runs[m]-c.RunsBefore, hits[m]-c.HitsBefore
	c.Lo, c.Hi = c.Split, c.Split
	n, h := runs[m], hits[m]
	base := logLik(h, n)
	for k := 1; k < m; k++ {
		nb, hb := runs[k], hits[k]
		if nb == 0 || nb == n {
			continue
		}
		if logLik(hb, nb)+logLik(h-hb, n-nb)-base >= c.LogLR-IntervalDrop {
			c.Lo, c.Hi = min(c.Lo, k), max(c.Hi, k)
		}
	}
	// The permutation test: the hits shuffled among the same runs, the best
	// split of each shuffle against the one seen.
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	labels := make([]bool, n)
	for i := range h {
		labels[i] = true
	}
	shuffled := make([]int, m+1)
	as := 0
	for shuffles := 1; shuffles <= Permutations; shuffles++ {
		rng.Shuffle(n, func(i, j int) { labels[i], labels[j] = labels[j], labels[i] })
		run, sum := 0, 0
		for i := 1; i <= m; i++ {
			for ; run < runs[i]; run++ {
				if labels[run] {
					sum++
				}
			}
			shuffled[i] = sum
		}
		if _, l := best(runs, shuffled, d); l >= c.LogLR-1e-9 {
			as++
			if as == exceedances {
				c.P = float64(as) / float64(shuffles)
				return c
			}
		}
	}
	c.P = float64(as+1) / float64(Permutations+1)
	return c
}
