package analyze

import (
	"errors"
	"math"
	"testing"

	"github.com/openshift-eng/prowcrawl/stats"
)

// verdictCases are planted counts whose verdict is known, each threshold
// from both sides. The p-values quoted were computed exactly (see
// fisherCases).
var verdictCases = []struct {
	name string
	s    Sample
	want string
}{
	// MinRuns = 10, on either side.
	{"sample of 9 runs", Sample{Runs: 9, Hits: 9, BasisRuns: 10}, VerdictInsufficient},
	{"sample of 10 runs", Sample{Runs: 10, Hits: 10, BasisRuns: 10}, VerdictRegression}, // p 5.4e-6
	{"basis of 9 runs", Sample{Runs: 10, Hits: 10, BasisRuns: 9}, VerdictInsufficient},
	{"no runs at all in the basis", Sample{Runs: 50, Hits: 10}, VerdictInsufficient},
	{"no sample hit", Sample{Runs: 20, BasisRuns: 20, BasisHits: 5}, VerdictNone}, // before improved, though p 0.016
	{"no hit anywhere", Sample{Runs: 20, BasisRuns: 20}, VerdictNone},
	// MinHits = 3: 2/10 against 0/1000 is significant (p 8.8e-5) but too rare to call.
	{"2 hits", Sample{Runs: 10, Hits: 2, BasisRuns: 1000}, VerdictNew},
	{"3 hits", Sample{Runs: 10, Hits: 3, BasisRuns: 1000}, VerdictRegression},
	// MinDelta = 5 points, with p far below 0.05 (4.5e-4 and 5.6e-4).
	{"5.0 points up", Sample{Runs: 1000, Hits: 150, BasisRuns: 1000, BasisHits: 100}, VerdictRegression},
	{"4.9 points up", Sample{Runs: 1000, Hits: 149, BasisRuns: 1000, BasisHits: 100}, VerdictFlake},
	{"5.0 points down", Sample{Runs: 1000, Hits: 100, BasisRuns: 1000, BasisHits: 150}, VerdictImproved},
	{"4.9 points down", Sample{Runs: 1000, Hits: 100, BasisRuns: 1000, BasisHits: 149}, VerdictFlake},
	// 15 % against 10 % of 100: 5 points but p 0.196.
	{"5 points, not significant", Sample{Runs: 100, Hits: 15, BasisRuns: 100, BasisHits: 10}, VerdictFlake},
	// Alpha = 0.05: 6/26 against 1/26 has p 0.04966; 6/27 against 1/27, 0.05014.
	{"p just below alpha", Sample{Runs: 26, Hits: 6, BasisRuns: 26, BasisHits: 1}, VerdictRegression},
	{"p just above alpha", Sample{Runs: 27, Hits: 6, BasisRuns: 27, BasisHits: 1}, VerdictFlake},
	// Persistent = 90 %.
	{"90 % as before", Sample{Runs: 100, Hits: 90, BasisRuns: 100, BasisHits: 90}, VerdictPersistent},
	{"89 % as before", Sample{Runs: 100, Hits: 89, BasisRuns: 100, BasisHits: 89}, VerdictFlake},
	{"9 of 10 as before", Sample{Runs: 10, Hits: 9, BasisRuns: 10, BasisHits: 9}, VerdictPersistent},
	{"regression before persistent", Sample{Runs: 100, Hits: 95, BasisRuns: 100, BasisHits: 20}, VerdictRegression},
	{"improved before persistent", Sample{Runs: 1000, Hits: 900, BasisRuns: 1000, BasisHits: 990}, VerdictImproved},
	// New: absent before, present now, not significant (p 0.24).
	{"new", Sample{Runs: 20, Hits: 2, BasisRuns: 20}, VerdictNew},
	{"absent before, nearly always now", Sample{Runs: 10, Hits: 9, BasisRuns: 10, BasisHits: 0}, VerdictRegression},
	{"flake", Sample{Runs: 20, Hits: 3, BasisRuns: 20, BasisHits: 2}, VerdictFlake},
	{"flake, rarer than before", Sample{Runs: 20, Hits: 2, BasisRuns: 20, BasisHits: 3}, VerdictFlake},
}

func TestVerdict(t *testing.T) {
	opts := DefaultOptions()
	for _, c := range verdictCases {
		t.Run(c.name, func(t *testing.T) {
			if got := Verdict(c.s, opts); got != c.want {
				g, l := stats.FisherOneSided(c.s.Hits, c.s.Runs, c.s.BasisHits, c.s.BasisRuns)
				t.Errorf("Verdict(%+v) = %s, want %s (p greater %v, less %v)", c.s, got, c.want, g, l)
			}
		})
	}
}

func TestVerdictThresholdsAreOptions(t *testing.T) {
	s := Sample{Runs: 26, Hits: 6, BasisRuns: 26, BasisHits: 1} // p 0.04966, 19 points
	for _, c := range []struct {
		name string
		set  func(*Options)
		want string
	}{
		{"defaults", func(*Options) {}, VerdictRegression},
		{"alpha 0.01", func(o *Options) { o.Alpha = 0.01 }, VerdictFlake},
		{"7 hits", func(o *Options) { o.MinHits = 7 }, VerdictFlake},
		{"20 points", func(o *Options) { o.MinDelta = 20 }, VerdictFlake},
		{"27 runs", func(o *Options) { o.MinRuns = 27 }, VerdictInsufficient},
		{"persistent from 20 %", func(o *Options) { o.Alpha, o.Persistent = 0.01, 20 }, VerdictPersistent},
	} {
		opts := DefaultOptions()
		c.set(&opts)
		if got := Verdict(s, opts); got != c.want {
			t.Errorf("%s: Verdict = %s, want %s", c.name, got, c.want)
		}
	}
}

func TestDecideP(t *testing.T) {
	opts := DefaultOptions()
	_, p := decide(Sample{Runs: 10, Hits: 10, BasisRuns: 10}, opts)
	if !closeTo(p, 5.412544112234515e-06, 1e-13) {
		t.Errorf("p of a higher rate = %v, want the greater tail", p)
	}
	_, p = decide(Sample{Runs: 10, BasisRuns: 10, BasisHits: 5}, opts)
	if !closeTo(p, 0.016253869969040248, 1e-13) {
		t.Errorf("p of a lower rate = %v, want the lower tail", p)
	}
	if _, p = decide(Sample{Runs: 10, Hits: 3}, opts); !math.IsNaN(p) {
		t.Errorf("p without basis runs = %v, want NaN", p)
	}
}

func TestOptionsValidate(t *testing.T) {
	if err := DefaultOptions().validate(); err != nil {
		t.Fatal(err)
	}
	for _, set := range []func(*Options){
		func(o *Options) { o.Alpha = 0 },
		func(o *Options) { o.Alpha = math.NaN() },
		func(o *Options) { o.MinHits = -1 },
		func(o *Options) { o.MinDelta = 101 },
		func(o *Options) { o.Persistent = -1 },
		func(o *Options) { o.SampleDays = 0 },
		func(o *Options) { o.BasisDays = -3 },
	} {
		opts := DefaultOptions()
		set(&opts)
		if err := opts.validate(); !errors.Is(err, ErrOptions) {
			t.Errorf("validate(%+v) = %v, want ErrOptions", opts, err)
		}
	}
}

// closeTo reports whether got is within a relative tol of want.
func closeTo(got, want, tol float64) bool {
	return got == want || math.Abs(got-want) <= tol*math.Abs(want)
}
