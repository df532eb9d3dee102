package analyze

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/stats"
)

// The verdicts, in the order they are decided: the root package's
// (prowcrawl.Verdict), as the strings that the analysis' rows hold.
const (
	VerdictInsufficient = string(prowcrawl.VerdictInsufficient)
	VerdictNone         = string(prowcrawl.VerdictNone)
	VerdictRegression   = string(prowcrawl.VerdictRegression)
	VerdictImproved     = string(prowcrawl.VerdictImproved)
	VerdictPersistent   = string(prowcrawl.VerdictPersistent)
	VerdictNew          = string(prowcrawl.VerdictNew)
	VerdictFlake        = string(prowcrawl.VerdictFlake)
)

// Options are the thresholds of the verdicts and the windows of the time
// comparison. Start from DefaultOptions.
type Options struct {
	// Alpha is the significance level of the one-sided Fisher exact tests.
	Alpha float64
	// MinHits is how many sample runs must show the symptom for a regression.
	MinHits int
	// MinDelta is how many percentage points the sample rate must be above
	// the basis rate for a regression (or below it for an improvement).
	MinDelta float64
	// MinRuns is how many finished runs the sample and the basis each need
	// for any verdict but insufficient.
	MinRuns int
	// Persistent is the sample rate, in percent, from which a symptom that
	// is not a regression is persistent.
	Persistent float64
	// SampleDays and BasisDays are the windows of the time comparison: the
	// last SampleDays before Now against the BasisDays before those.
	SampleDays, BasisDays int
	// AnalysedAt is when the analysis counts as made: the regressions it
	// opens and closes are dated with it. Zero means the wall clock.
	AnalysedAt time.Time
	// Now ends the sample window. Zero means the start of the newest run in
	// the database, so that a backfill of old history is analysed as of its
	// own end.
	Now time.Time
}

// DefaultOptions are the design's thresholds, which are Sippy's Component
// Readiness defaults: 95 % confidence, 3 failures, 5 points.
func DefaultOptions() Options {
	return Options{Alpha: 0.05, MinHits: 3, MinDelta: 5, MinRuns: 10, Persistent: 90, SampleDays: 7, BasisDays: 30}
}

// ErrOptions is returned (wrapped) for options that cannot be used.
var ErrOptions = errors.New("invalid analysis options")

func (o Options) validate() error {
	var errs []error
	if !(o.Alpha > 0 && o.Alpha < 1) {
		errs = append(errs, fmt.Errorf("alpha %v is not between 0 and 1", o.Alpha))
	}
	if o.MinHits < 0 || o.MinRuns < 0 {
		errs = append(errs, fmt.Errorf("minimum hits %d and runs %d must not be negative", o.MinHits, o.MinRuns))
	}
	if !(o.MinDelta >= 0 && o.MinDelta <= 100) || !(o.Persistent >= 0 && o.Persistent <= 100) {
		errs = append(errs, fmt.Errorf("minimum delta %v and persistent rate %v must be percentages", o.MinDelta, o.Persistent))
	}
	if o.SampleDays <= 0 || o.BasisDays <= 0 {
		errs = append(errs, fmt.Errorf("sample days %d and basis days %d must be positive", o.SampleDays, o.BasisDays))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrOptions, errors.Join(errs...))
	}
	return nil
}

// Sample is what a verdict is decided on: how many finished runs of the
// sample show a symptom, and the same of the basis it is compared with.
type Sample struct {
	Runs, Hits           int
	BasisRuns, BasisHits int
}

// Rate is the sample's rate, NaN without runs.
func (s Sample) Rate() float64 { return rate(s.Hits, s.Runs) }

// BasisRate is the basis's rate, NaN without runs.
func (s Sample) BasisRate() float64 { return rate(s.BasisHits, s.BasisRuns) }

func rate(hits, runs int) float64 {
	if runs == 0 {
		return math.NaN()
	}
	return float64(hits) / float64(runs)
}

// Verdict decides the verdict on s, checking in this order:
//
//  1. insufficient: fewer than MinRuns finished runs in the sample or the basis;
//  2. none: no sample run shows the symptom;
//  3. regression: the one-sided Fisher p of a higher sample rate is below
//     Alpha, at least MinHits sample runs show it, and the sample rate is at
//     least MinDelta points above the basis rate;
//  4. improved: the one-sided p of a lower sample rate is below Alpha and the
//     sample rate is at least MinDelta points below the basis rate;
//  5. persistent: the sample rate is at least Persistent percent;
//  6. new: no basis run shows it;
//  7. flake: otherwise.
func Verdict(s Sample, opts Options) string {
	v, _ := decide(s, opts)
	return v
}

// decide is Verdict, and the p-value in the direction the sample moved (the
// one a regression or an improvement is decided on): NaN when either side
// has no runs, as no test can be made.
func decide(s Sample, opts Options) (verdict string, p float64) {
	greater, less := stats.FisherOneSided(s.Hits, s.Runs, s.BasisHits, s.BasisRuns)
	p = math.NaN()
	if s.Runs > 0 && s.BasisRuns > 0 {
		p = greater
		if s.lower() {
			p = less
		}
	}
	// The rates are compared exactly, cross-multiplied in integers: as
	// floats, 15/100 - 10/100 is a hair under 5 points.
	sr, br := int64(s.Runs), int64(s.BasisRuns)
	rise := 100 * (int64(s.Hits)*br - int64(s.BasisHits)*sr) // points × sr × br
	scale := float64(sr) * float64(br)
	switch {
	case s.Runs < opts.MinRuns || s.BasisRuns < opts.MinRuns:
		return VerdictInsufficient, p
	case s.Hits == 0:
		return VerdictNone, p
	case greater < opts.Alpha && s.Hits >= opts.MinHits && float64(rise) >= opts.MinDelta*scale:
		return VerdictRegression, p
	case less < opts.Alpha && float64(-rise) >= opts.MinDelta*scale:
		return VerdictImproved, p
	case float64(100*int64(s.Hits)) >= opts.Persistent*float64(sr):
		return VerdictPersistent, p
	case s.BasisHits == 0:
		return VerdictNew, p
	default:
		return VerdictFlake, p
	}
}

// lower says whether the sample rate is below the basis rate.
func (s Sample) lower() bool {
	return int64(s.Hits)*int64(s.BasisRuns) < int64(s.BasisHits)*int64(s.Runs)
}
