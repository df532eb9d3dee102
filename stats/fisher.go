package stats

import "math"

// FisherOneSided is Fisher's exact test on the 2×2 table of a sample
// (sampleHits of sampleRuns show a symptom) against a basis (basisHits of
// basisRuns). greater is the p-value of the sample rate being higher than the
// basis rate (a regression), less of it being lower (an improvement): the
// probability, with the margins fixed, of a table at least as extreme in that
// direction. A table with an empty row or column carries no evidence: both
// are 1. Counts that do not make a table (negative, or hits above runs) give
// NaN.
//
// The hypergeometric probabilities are computed in logarithms with
// math.Lgamma and summed from the least likely end of the tail, so counts in
// the millions neither overflow nor lose the small p-values.
func FisherOneSided(sampleHits, sampleRuns, basisHits, basisRuns int) (greater, less float64) {
	h, ok := newHyper(sampleHits, sampleRuns, basisHits, basisRuns)
	if !ok {
		return math.NaN(), math.NaN()
	}
	return h.greater(sampleHits), h.less(sampleHits)
}

// FisherTwoSided is the two-sided p-value of Fisher's exact test on the same
// table as FisherOneSided: the probability of every table no more likely
// than the one observed (with a relative tolerance of 1e-7 for ties, as R's
// fisher.test).
func FisherTwoSided(sampleHits, sampleRuns, basisHits, basisRuns int) float64 {
	h, ok := newHyper(sampleHits, sampleRuns, basisHits, basisRuns)
	if !ok {
		return math.NaN()
	}
	return h.twoSided(sampleHits)
}

// hyper is the hypergeometric distribution of the sample's hits x: n draws
// (the sample's runs) from N runs of which k show the symptom. x ranges over
// [lo, hi] and is most likely at mode; the probabilities rise up to mode and
// fall after it.
type hyper struct {
	n, k, nn     int
	lo, hi, mode int
	logTotal     float64 // log C(N, n)
	degenerate   bool    // a single possible table
}

func newHyper(sampleHits, sampleRuns, basisHits, basisRuns int) (hyper, bool) {
	if sampleHits < 0 || basisHits < 0 || sampleHits > sampleRuns || basisHits > basisRuns {
		return hyper{}, false
	}
	n, k, nn := sampleRuns, sampleHits+basisHits, sampleRuns+basisRuns
	h := hyper{n: n, k: k, nn: nn, lo: max(0, n-(nn-k)), hi: min(n, k)}
	h.degenerate = h.lo == h.hi
	if h.degenerate {
		return h, true
	}
	// The mode of the hypergeometric distribution; int64 products, since
	// (n+1)(k+1) exceeds 32 bits for counts in the hundreds of thousands.
	h.mode = int(int64(n+1) * int64(k+1) / int64(nn+2))
	h.mode = min(max(h.mode, h.lo), h.hi)
	h.logTotal = lchoose(nn, n)
	return h, true
}

// lgamma is log Γ(x) for x > 0.
func lgamma(x float64) float64 {
	v, _ := math.Lgamma(x)
	return v
}

// lchoose is log C(n, r).
func lchoose(n, r int) float64 {
	return lgamma(float64(n)+1) - lgamma(float64(r)+1) - lgamma(float64(n-r)+1)
}

// logP is log P(X = x).
func (h hyper) logP(x int) float64 {
	return lchoose(h.k, x) + lchoose(h.nn-h.k, h.n-x) - h.logTotal
}

// up is P(X = x+1) / P(X = x).
func (h hyper) up(x int) float64 {
	return float64(h.k-x) * float64(h.n-x) / (float64(x+1) * float64(h.nn-h.k-h.n+x+1))
}

// down is P(X = x-1) / P(X = x).
func (h hyper) down(x int) float64 {
	return float64(x) * float64(h.nn-h.k-h.n+x) / (float64(h.k-x+1) * float64(h.n-x+1))
}

// tail is P(X = x) + P(X = x+dir) + ... to the end of the range, for x on
// the side of the mode where the terms fall in direction dir (x >= mode for
// dir = +1, x <= mode for dir = -1). The terms are taken relative to the
// first, by their ratios, so none overflows; the sum stops when a term no
// longer changes it.
func (h hyper) tail(x, dir int) float64 {
	term, sum := 1.0, 1.0
	for y := x; ; {
		if dir > 0 {
			if y >= h.hi {
				break
			}
			term *= h.up(y)
			y++
		} else {
			if y <= h.lo {
				break
			}
			term *= h.down(y)
			y--
		}
		sum += term
		if term <= sum*0x1p-60 {
			break
		}
	}
	return math.Exp(h.logP(x)) * sum
}

// greater is P(X >= x). The side of the tail away from the mode is the small
// one, summed directly; the other is one minus the small one, which is then
// far from zero, so nothing is lost to cancellation.
func (h hyper) greater(x int) float64 {
	switch {
	case h.degenerate || x <= h.lo:
		return 1
	case x > h.hi:
		return 0
	case x > h.mode:
		return clamp01(h.tail(x, +1))
	default:
		return clamp01(1 - h.tail(x-1, -1))
	}
}

// less is P(X <= x).
func (h hyper) less(x int) float64 {
	switch {
	case h.degenerate || x >= h.hi:
		return 1
	case x < h.lo:
		return 0
	case x < h.mode:
		return clamp01(h.tail(x, -1))
	default:
		return clamp01(1 - h.tail(x+1, +1))
	}
}

// twoSided sums P(X = y) over every y with P(X = y) <= P(X = x): the values
// at both ends of the range, up to the last one below the mode and from the
// first one above it that are no more likely than x. Both are found by
// bisection, since the probabilities are monotone on each side of the mode.
func (h hyper) twoSided(x int) float64 {
	if h.degenerate {
		return 1
	}
	limit := h.logP(x) + math.Log1p(1e-7)
	if h.logP(h.mode) <= limit {
		return 1
	}
	p := 0.0
	// Below the mode: the largest y in [lo, mode) with logP(y) <= limit.
	if h.logP(h.lo) <= limit {
		a, b := h.lo, h.mode // logP(a) <= limit < logP(b)
		for b-a > 1 {
			m := a + (b-a)/2
			if h.logP(m) <= limit {
				a = m
			} else {
				b = m
			}
		}
		p += h.tail(a, -1)
	}
	// Above the mode: the smallest y in (mode, hi] with logP(y) <= limit.
	if h.logP(h.hi) <= limit {
		a, b := h.mode, h.hi // logP(a) > limit >= logP(b)
		for b-a > 1 {
			m := a + (b-a)/2
			if h.logP(m) <= limit {
				b = m
			} else {
				a = m
			}
		}
		p += h.tail(b, +1)
	}
	return clamp01(p)
}

func clamp01(p float64) float64 {
	return min(max(p, 0), 1)
}
