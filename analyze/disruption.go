package analyze

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"

	"github.com/openshift-eng/prowcrawl/db"
)

// side is the disruption values (seconds per run) of one backend in one
// scope key, and the starts of the first and last of those runs.
type side struct {
	values      []float64
	first, last time.Time
}

// add adds n runs of v seconds, started from first to last.
func (s *side) add(v float64, n int, first, last time.Time) {
	if n == 0 {
		return
	}
	for range n {
		s.values = append(s.values, v)
	}
	if s.first.IsZero() || first.Before(s.first) {
		s.first = first
	}
	if last.After(s.last) {
		s.last = last
	}
}

// sides are the disruption of one backend in one scope key: of every run,
// and of the runs in the sample and the basis windows.
type sides struct{ all, sample, basis side }

// backendKey is a scope key's disruption of one backend.
type backendKey struct {
	backend string
	k       scopeKey
}

// disruption compares, for every backend, every scope key's disruption
// with its basis, as the job-run aggregator does: the sample's 95th
// percentile must not be above the basis's. The comparisons are those of
// the verdicts: the same-shaped edge (or variant) one release earlier, and
// the sample window against the basis window. It counts the runs within
// a.b, the runs a.counts are of; with a.keepValues each side's values stay
// in the edges' rows (for their charts); each (when set) is called with
// every total read and its edge.
func (a *analysis) disruption(ctx context.Context, each func(db.DisruptionCell, string)) ([]db.DisruptionStat, error) {
	s, w := a.s, a.w
	jobs := jobAttrs(a.counts)
	var out []db.DisruptionStat
	// The runs of each distinct total by day (db.DisruptionCells, which
	// reads whole days from disruption_days, and the whole history as
	// well as a window), compared at the end.
	byKey := map[backendKey]*sides{}
	// A run's keys are its group's (job and edge): computed once a group,
	// not once a row.
	type group struct{ job, release, from, upgrade string }
	type groupKeys struct {
		keys []scopeKey
		edge string
	}
	groups := map[group]groupKeys{}
	// The sides a group's rows of a backend add to, found once.
	type groupBackend struct {
		group
		backend string
	}
	cells := map[groupBackend][]*sides{}
	// cell adds a cell's runs: a day's runs of one total.
	cell := func(t db.DisruptionCell) error {
		g := group{t.Job, t.Release, t.FromRelease, t.Upgrade}
		gk, ok := groups[g]
		if !ok {
			gk.keys = keysOf(t.Job, t.Release, t.FromRelease, t.Upgrade, jobs[t.Job])
			for _, k := range gk.keys {
				if k.scope == db.ScopeEdge {
					gk.edge = k.key
				}
			}
			groups[g] = gk
		}
		keys := gk.keys
		if each != nil {
			each(t, gk.edge)
		}
		if math.IsNaN(t.Seconds) {
			return nil
		}
		gb := groupBackend{g, t.Backend}
		vs, ok := cells[gb]
		if !ok {
			for _, k := range keys {
				bk := backendKey{t.Backend, k}
				v := byKey[bk]
				if v == nil {
					v = &sides{}
					byKey[bk] = v
				}
				vs = append(vs, v)
			}
			cells[gb] = vs
		}
		for _, v := range vs {
			v.all.add(t.Seconds, t.Runs, t.First, t.Last)
			v.sample.add(t.Seconds, t.Sample, t.SampleFirst, t.SampleLast)
			v.basis.add(t.Seconds, t.Basis, t.BasisFirst, t.BasisLast)
		}
		return nil
	}
	if err := a.store.DisruptionCells(ctx, a.b, w.sample, w.basis, cell); err != nil {
		return nil, err
	}
	keys := make([]backendKey, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b backendKey) int {
		return cmp.Or(cmp.Compare(a.backend, b.backend), cmp.Compare(a.k.scope, b.k.scope), cmp.Compare(a.k.key, b.k.key))
	})
	for _, k := range keys {
		v := byKey[k]
		if bk, ok := s.basisOf(k.k); ok && len(v.all.values) > 0 {
			var basis side
			if b := byKey[backendKey{k.backend, bk}]; b != nil {
				basis = b.all
			}
			out = append(out, a.disruptionRow(k.backend, comparison{k.k, db.CompareRelease, k.k.key, bk.key}, v.all, basis))
		}
		if len(v.sample.values) > 0 {
			out = append(out, a.disruptionRow(k.backend, comparison{k.k, db.CompareWindow, w.sampleLabel, w.basisLabel}, v.sample, v.basis))
		}
	}
	return out, nil
}

// DisruptionVerdict decides a comparison of disruption: insufficient with
// fewer than MinRuns runs on a side, worse when the sample's 95th
// percentile is above the basis's, else ok.
func DisruptionVerdict(sample, basis Distribution, opts Options) string {
	switch {
	case sample.Runs < opts.MinRuns || basis.Runs < opts.MinRuns:
		return db.DisruptionInsufficient
	case sample.P95 > basis.P95:
		return db.DisruptionWorse
	default:
		return db.DisruptionOK
	}
}

// disruptionRow is the comparison c of backend's disruption, sample against
// basis.
func (a *analysis) disruptionRow(backend string, c comparison, sample, basis side) db.DisruptionStat {
	sd, bd := Distribute(sample.values), Distribute(basis.values)
	st := db.DisruptionStat{
		Backend: backend, Scope: c.k.scope, Key: c.k.key, Comparison: c.kind,
		SampleLabel: c.sampleLabel, BasisLabel: c.basisLabel,
		SampleRuns: sd.Runs, SampleMedian: sd.Median, SampleP95: sd.P95, SampleMax: sd.Max,
		BasisRuns: bd.Runs, BasisMedian: bd.Median, BasisP95: bd.P95, BasisMax: bd.Max,
		P95Delta: sd.P95 - bd.P95, Verdict: DisruptionVerdict(sd, bd, a.opts),
		SampleFrom: sample.first, SampleTo: sample.last, BasisFrom: basis.first, BasisTo: basis.last,
	}
	if a.keepValues && c.k.scope == db.ScopeEdge {
		st.SampleValues, st.BasisValues = sample.values, basis.values
	}
	return st
}
