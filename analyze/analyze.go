package analyze

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/openshift-eng/prowcrawl/db"
)

// Summary is what an analysis did.
type Summary struct {
	Symptoms    int // active symptoms analysed
	Verdicts    int // rows written to symptom_verdicts
	Regressions int // of those, regressions (a regression on an edge shows on its variants too)
	// RegressionsBy counts the regressions of each scope (edge, variant,
	// job): what `report --by SCOPE` shows.
	RegressionsBy map[string]int
	// Changes counts the regressions this analysis opened, reopened or
	// closed (the regressions table, across analyses).
	Changes  int
	Duration time.Duration
}

// dateLabel is how a window's ends are labelled: "2026-11-23..2026-11-30".
const dateLabel = time.DateOnly

// windows are the two spans of the time comparison, and their labels.
type windows struct {
	sample, basis           db.Window
	sampleLabel, basisLabel string
}

// windowsAt ends the sample window at now: the last SampleDays, and before
// them the BasisDays.
func windowsAt(now time.Time, opts Options) windows {
	now = now.UTC()
	mid := now.AddDate(0, 0, -opts.SampleDays)
	start := mid.AddDate(0, 0, -opts.BasisDays)
	return windows{
		sample:      db.Window{From: mid, To: now},
		basis:       db.Window{From: start, To: mid},
		sampleLabel: mid.Format(dateLabel) + ".." + now.Format(dateLabel),
		basisLabel:  start.Format(dateLabel) + ".." + mid.Format(dateLabel),
	}
}

// Run recomputes the whole analysis and replaces the old one in one
// transaction: for every active symptom, its verdict in every edge and
// variant against the same-shaped one a release earlier, and in every job,
// edge and variant over the last SampleDays against the BasisDays before;
// and the flake rate of every test in every job, edge and variant.
func Run(ctx context.Context, store *db.DB, opts Options) (Summary, error) {
	start := time.Now()
	if err := opts.validate(); err != nil {
		return Summary{}, err
	}
	now := opts.Now
	if now.IsZero() {
		var err error
		if now, err = store.NewestRunStart(ctx); err != nil {
			return Summary{}, fmt.Errorf("analyze: %w", err)
		}
	}
	w := windowsAt(now, opts)
	counts, err := store.AnalysisCounts(ctx, w.sample, w.basis)
	if err != nil {
		return Summary{}, fmt.Errorf("analyze: %w", err)
	}
	verdicts := symptomVerdicts(counts, w, opts)
	rates := flakeRates(counts)
	if err := store.ReplaceAnalysis(ctx, verdicts, rates); err != nil {
		return Summary{}, fmt.Errorf("analyze: %w", err)
	}
	changes, err := keepLifecycle(ctx, store, counts, verdicts, w, opts, now)
	if err != nil {
		return Summary{}, fmt.Errorf("analyze: %w", err)
	}
	sum := Summary{Symptoms: len(counts.Symptoms), Verdicts: len(verdicts), Changes: changes, Duration: time.Since(start), RegressionsBy: make(map[string]int)}
	for _, v := range verdicts {
		if v.Verdict == VerdictRegression {
			sum.Regressions++
			sum.RegressionsBy[v.Scope]++
		}
	}
	return sum, nil
}

// scopeKey names a scope key: ("edge", "4.13->4.14 minor").
type scopeKey struct{ scope, key string }

// tally counts finished runs, or those showing a symptom: over all time, in
// the sample window and in the basis window.
type tally struct{ all, sample, basis int }

func (t *tally) add(all, sample, basis int) {
	t.all += all
	t.sample += sample
	t.basis += basis
}

// keysOf are the scope keys a job's runs on an edge count in: the job, and
// when the release is known, the edge and the variant.
func keysOf(job, rel, from, kind string, attrs db.Variant) []scopeKey {
	keys := []scopeKey{{db.ScopeJob, job}}
	if rel == "" {
		return keys
	}
	v := attrs
	v.Edge = db.Edge{From: from, To: rel, Kind: kind}
	return append(keys, scopeKey{db.ScopeEdge, v.Edge.String()}, scopeKey{db.ScopeVariant, v.String()})
}

// scopeCounts are the counts of every scope key, summed from the groups by
// job and edge that the database returns.
type scopeCounts struct {
	runs map[scopeKey]*tally
	hits map[string]map[scopeKey]*tally // by symptom
	// edges are the edge and variant keys by their structure, to find a
	// key's basis.
	edges map[scopeKey]db.Variant
	known []release // every release seen, for the release before an X.0
}

func sumScopes(c db.AnalysisCounts) scopeCounts {
	s := scopeCounts{runs: map[scopeKey]*tally{}, hits: map[string]map[scopeKey]*tally{}, edges: map[scopeKey]db.Variant{}}
	jobs := jobAttrs(c)
	seen := map[release]bool{}
	for _, g := range c.Runs {
		attrs := jobs[g.Job]
		for _, k := range keysOf(g.Job, g.Release, g.FromRelease, g.Upgrade, attrs) {
			t := s.runs[k]
			if t == nil {
				t = &tally{}
				s.runs[k] = t
			}
			t.add(g.Runs, g.Sample, g.Basis)
			if k.scope != db.ScopeJob {
				v := attrs
				v.Edge = db.Edge{From: g.FromRelease, To: g.Release, Kind: g.Upgrade}
				s.edges[k] = v
			}
		}
		for _, r := range []string{g.Release, g.FromRelease} {
			if rel, ok := parseRelease(r); ok && !seen[rel] {
				seen[rel] = true
				s.known = append(s.known, rel)
			}
		}
	}
	for _, g := range c.Hits {
		bySymptom := s.hits[g.Symptom]
		if bySymptom == nil {
			bySymptom = map[scopeKey]*tally{}
			s.hits[g.Symptom] = bySymptom
		}
		for _, k := range keysOf(g.Job, g.Release, g.FromRelease, g.Upgrade, jobs[g.Job]) {
			t := bySymptom[k]
			if t == nil {
				t = &tally{}
				bySymptom[k] = t
			}
			t.add(g.Runs, g.Sample, g.Basis)
		}
	}
	return s
}

// basisOf is the key that the release comparison of k is made against: the
// same-shaped edge (or variant) one release earlier. ok is false for a job,
// and for an edge whose previous release is unknown.
func (s scopeCounts) basisOf(k scopeKey) (basis scopeKey, ok bool) {
	v, ok := s.edges[k]
	if !ok {
		return scopeKey{}, false
	}
	prev, ok := previousEdge(v.Edge, s.known)
	if !ok {
		return scopeKey{}, false
	}
	if k.scope == db.ScopeEdge {
		return scopeKey{k.scope, prev.String()}, true
	}
	v.Edge = prev
	return scopeKey{k.scope, v.String()}, true
}

// get is the tally of k, zero when it has none.
func get(m map[scopeKey]*tally, k scopeKey) tally {
	if t := m[k]; t != nil {
		return *t
	}
	return tally{}
}

// symptomVerdicts decides every verdict: for each active symptom, each edge
// and variant with finished runs against its previous release (written even
// when that has no runs, so that the reader sees why it is insufficient),
// and each job, edge and variant with finished runs in the sample window
// against the basis window.
func symptomVerdicts(c db.AnalysisCounts, w windows, opts Options) []db.SymptomVerdict {
	s := sumScopes(c)
	keys := make([]scopeKey, 0, len(s.runs))
	for k := range s.runs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b scopeKey) int {
		return cmp.Or(cmp.Compare(a.scope, b.scope), cmp.Compare(a.key, b.key))
	})
	var out []db.SymptomVerdict
	for _, symptom := range c.Symptoms {
		hits := s.hits[symptom]
		for _, k := range keys {
			runs := get(s.runs, k)
			if bk, ok := s.basisOf(k); ok && runs.all > 0 {
				sample := Sample{Runs: runs.all, Hits: get(hits, k).all,
					BasisRuns: get(s.runs, bk).all, BasisHits: get(hits, bk).all}
				out = append(out, verdictRow(symptom, k, db.CompareRelease, k.key, bk.key, sample, opts))
			}
			if runs.sample > 0 {
				sample := Sample{Runs: runs.sample, Hits: get(hits, k).sample,
					BasisRuns: runs.basis, BasisHits: get(hits, k).basis}
				out = append(out, verdictRow(symptom, k, db.CompareWindow, w.sampleLabel, w.basisLabel, sample, opts))
			}
		}
	}
	return out
}

func verdictRow(symptom string, k scopeKey, comparison, sampleLabel, basisLabel string, s Sample, opts Options) db.SymptomVerdict {
	verdict, p := decide(s, opts)
	return db.SymptomVerdict{
		Symptom: symptom, Scope: k.scope, Key: k.key, Comparison: comparison,
		SampleLabel: sampleLabel, BasisLabel: basisLabel,
		SampleRuns: s.Runs, SampleHits: s.Hits, BasisRuns: s.BasisRuns, BasisHits: s.BasisHits,
		SampleRate: s.Rate(), BasisRate: s.BasisRate(), P: p, Verdict: verdict,
	}
}

// flakeRates sums the tests' groups by job and edge into every scope key.
func flakeRates(c db.AnalysisCounts) []db.TestFlakeRate {
	jobs := jobAttrs(c)
	type testKey struct {
		scopeKey
		suite, name string
	}
	sums := map[testKey]*db.TestFlakeRate{}
	for _, g := range c.Tests {
		for _, k := range keysOf(g.Job, g.Release, g.FromRelease, g.Upgrade, jobs[g.Job]) {
			tk := testKey{k, g.Suite, g.Name}
			r := sums[tk]
			if r == nil {
				r = &db.TestFlakeRate{Scope: k.scope, Key: k.key, Suite: g.Suite, Name: g.Name}
				sums[tk] = r
			}
			r.Runs += g.Runs
			r.Failures += g.Failures
			r.Flakes += g.Flakes
		}
	}
	out := make([]db.TestFlakeRate, 0, len(sums))
	for _, r := range sums {
		r.FlakeRate = float64(r.Flakes) / float64(r.Runs)
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b db.TestFlakeRate) int {
		return cmp.Or(cmp.Compare(a.Scope, b.Scope), cmp.Compare(a.Key, b.Key),
			cmp.Compare(a.Suite, b.Suite), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// jobAttrs are each job's platform, network and arch.
func jobAttrs(c db.AnalysisCounts) map[string]db.Variant {
	jobs := make(map[string]db.Variant)
	for _, g := range c.Runs {
		jobs[g.Job] = db.Variant{Platform: g.Platform, Network: g.Network, Arch: g.Arch}
	}
	return jobs
}
