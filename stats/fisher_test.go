package stats

import (
	"math"
	"testing"
)

// fisherCases are reference p-values computed exactly with Python 3's
// integers, math.comb and fractions.Fraction, then rounded once to float64:
// every hypergeometric term C(K,x)·C(N−K,n−x) of the table as an exact
// integer (the first with math.comb, the next by the exact integer ratio
// (K−x)(n−x) / ((x+1)(N−K−n+x+1))), the tails summed exactly, and divided by
// C(N,n) as a Fraction:
//
//	greater = Σ_{x ≥ a} t(x) / C(N,n)
//	less    = Σ_{x ≤ a} t(x) / C(N,n)
//	two     = Σ_{t(x) ≤ t(a)} t(x) / C(N,n)
//
// with a = sample hits, n = sample runs, K = all hits, N = all runs. No
// approximation; scipy was not used.
var fisherCases = []struct {
	sampleHits, sampleRuns, basisHits, basisRuns int
	greater, less, two                           float64
}{
	// Empty rows and columns carry no evidence.
	{0, 0, 0, 0, 1.0, 1.0, 1.0},
	{5, 10, 0, 0, 1.0, 1.0, 1.0},
	{0, 10, 0, 10, 1.0, 1.0, 1.0},
	{10, 10, 10, 10, 1.0, 1.0, 1.0}, // every run shows it
	{1, 1, 0, 1, 0.5, 1.0, 1.0},
	// Zero cells.
	{0, 10, 10, 10, 1.0, 5.412544112234515e-06, 1.082508822446903e-05},
	{10, 10, 0, 10, 5.412544112234515e-06, 1.0, 1.082508822446903e-05},
	{0, 10, 5, 10, 1.0, 0.016253869969040248, 0.032507739938080496},
	{0, 5, 3, 30, 1.0, 0.6203208556149733, 1.0},
	{3, 30, 0, 5, 0.6203208556149733, 1.0, 1.0},
	// Small tables, symmetric and not.
	{3, 10, 1, 10, 0.29102167182662536, 0.9566563467492261, 0.5820433436532507},
	{1, 10, 3, 10, 0.9566563467492261, 0.29102167182662536, 0.5820433436532507},
	{7, 12, 2, 15, 0.019374523264683446, 0.9983688317784427, 0.03691838291380625},
	{2, 20, 8, 25, 0.9861675017659136, 0.07824854393203798, 0.14735757617209688},
	{12, 40, 3, 60, 0.0008443785524510137, 0.9999102724291659, 0.0010543509617312135},
	{5, 9, 1, 11, 0.037925696594427245, 0.9978328173374613, 0.04984520123839009},
	{40, 200, 20, 300, 8.085636760454133e-06, 0.9999978183335787, 9.988243501317268e-06},
	// Around the thresholds: 15 % against 10 % (5 points), 14.9 % against 10 %.
	{15, 100, 10, 100, 0.19641480788008592, 0.9005698344560739, 0.39282961576017184},
	{150, 1000, 100, 1000, 0.00044754376934534465, 0.9997278860177964, 0.0008950875386906893},
	{149, 1000, 100, 1000, 0.0005588623181779585, 0.9996577141029397, 0.001117724636355917},
	// Large counts: factorials of these overflow any float.
	{4500, 150000, 3000, 150000, 1.5490175341915702e-69, 1.0, 3.0980350683831403e-69},
	{3000, 150000, 4500, 150000, 1.0, 1.5490175341915702e-69, 3.0980350683831403e-69},
	{60, 1000000, 30, 1000000, 0.0010298963250617817, 0.9995137460575422, 0.0020597926501235635},
	{3100, 1000000, 3000, 1000000, 0.10212905677970821, 0.9023676537115647, 0.20425811355941642},
}

// closeTo reports whether got is within a relative tol of want.
func closeTo(got, want, tol float64) bool {
	return got == want || math.Abs(got-want) <= tol*math.Abs(want)
}

// tolerance is the relative error allowed for a table of n runs in all.
// The log-gamma of n carries an absolute error of a few ulps of n·log n,
// about 1e-15·n, which becomes the relative error of every p-value: 2e-9 at
// two million runs, far below what a verdict could notice.
func tolerance(n int) float64 {
	return max(1e-13, 4e-15*float64(n))
}

func TestFisherReference(t *testing.T) {
	for _, c := range fisherCases {
		greater, less := FisherOneSided(c.sampleHits, c.sampleRuns, c.basisHits, c.basisRuns)
		two := FisherTwoSided(c.sampleHits, c.sampleRuns, c.basisHits, c.basisRuns)
		tol := tolerance(c.sampleRuns + c.basisRuns)
		if !closeTo(greater, c.greater, tol) || !closeTo(less, c.less, tol) || !closeTo(two, c.two, tol) {
			t.Errorf("Fisher(%d/%d vs %d/%d) = greater %v less %v two %v, want %v %v %v",
				c.sampleHits, c.sampleRuns, c.basisHits, c.basisRuns, greater, less, two, c.greater, c.less, c.two)
		}
	}
}

// TestFisherProperties checks what must hold for any table: p-values in
// [0, 1], the two tails overlapping in exactly the observed table, and the
// test symmetric in swapping sample and basis.
func TestFisherProperties(t *testing.T) {
	tables := [][4]int{}
	for _, n := range []int{0, 1, 2, 7, 30} {
		for _, m := range []int{0, 1, 5, 30} {
			for a := 0; a <= n; a++ {
				for c := 0; c <= m; c += max(1, m/5) {
					tables = append(tables, [4]int{a, n, c, m})
				}
			}
		}
	}
	tables = append(tables, [4]int{500000, 1000000, 499000, 1000000}, [4]int{2999999, 3000000, 0, 3000000},
		[4]int{7, 4000000, 900, 4000000}, [4]int{1, 2000000, 1999999, 2000000})
	for _, tb := range tables {
		a, n, c, m := tb[0], tb[1], tb[2], tb[3]
		g, l := FisherOneSided(a, n, c, m)
		two := FisherTwoSided(a, n, c, m)
		for _, p := range []float64{g, l, two} {
			if math.IsNaN(p) || p < 0 || p > 1 {
				t.Fatalf("Fisher(%d/%d vs %d/%d) = %v %v %v: not a probability", a, n, c, m, g, l, two)
			}
		}
		// P(X >= a) + P(X <= a) = 1 + P(X = a) >= 1.
		if g+l < 1-1e-9 {
			t.Errorf("Fisher(%d/%d vs %d/%d): greater %v + less %v < 1", a, n, c, m, g, l)
		}
		if two < min(g, l)-1e-12 {
			t.Errorf("Fisher(%d/%d vs %d/%d): two-sided %v below one-sided %v", a, n, c, m, two, min(g, l))
		}
		g2, l2 := FisherOneSided(c, m, a, n)
		if tol := tolerance(n + m); !closeTo(g2, l, tol) || !closeTo(l2, g, tol) {
			t.Errorf("Fisher(%d/%d vs %d/%d) = %v %v, swapped %v %v", a, n, c, m, g, l, g2, l2)
		}
	}
}

func TestFisherInvalid(t *testing.T) {
	for _, tb := range [][4]int{{-1, 10, 0, 10}, {11, 10, 0, 10}, {0, 10, 3, 2}} {
		g, l := FisherOneSided(tb[0], tb[1], tb[2], tb[3])
		if two := FisherTwoSided(tb[0], tb[1], tb[2], tb[3]); !math.IsNaN(g) || !math.IsNaN(l) || !math.IsNaN(two) {
			t.Errorf("Fisher(%v) = %v %v %v, want NaN", tb, g, l, two)
		}
	}
}

func BenchmarkFisher(b *testing.B) {
	for b.Loop() {
		FisherOneSided(4500, 150000, 3000, 150000)
		FisherTwoSided(4500, 150000, 3000, 150000)
	}
}
