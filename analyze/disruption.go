package analyze

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/openshift-eng/prowcrawl/db"
)

// sides are the disruption values (seconds per run) of one backend in one
// scope key: of every run, and of the runs in the sample and the basis
// windows.
type sides struct{ all, sample, basis []float64 }

// disruptionStats compares, for every backend, every scope key's
// disruption with its basis, as the job-run aggregator does: the sample's
// 95th percentile must not be above the basis's. The comparisons are those
// of the verdicts: the same-shaped edge (or variant) one release earlier,
// and the sample window against the basis window.
func disruptionStats(ctx context.Context, store *db.DB, c db.AnalysisCounts, s scopeCounts, w windows, opts Options) ([]db.DisruptionStat, error) {
	jobs := jobAttrs(c)
	var out []db.DisruptionStat
	backend := ""
	byKey := map[scopeKey]*sides{}
	flush := func() {
		keys := make([]scopeKey, 0, len(byKey))
		for k := range byKey {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b scopeKey) int { return cmp.Or(cmp.Compare(a.scope, b.scope), cmp.Compare(a.key, b.key)) })
		for _, k := range keys {
			v := byKey[k]
			if bk, ok := s.basisOf(k); ok && len(v.all) > 0 {
				var basis []float64
				if b := byKey[bk]; b != nil {
					basis = b.all
				}
				out = append(out, disruptionRow(backend, k, db.CompareRelease, k.key, bk.key, v.all, basis, opts))
			}
			if len(v.sample) > 0 {
				out = append(out, disruptionRow(backend, k, db.CompareWindow, w.sampleLabel, w.basisLabel, v.sample, v.basis, opts))
			}
		}
		clear(byKey)
	}
	err := store.DisruptionTotals(ctx, func(t db.RunDisruptionTotal) error {
		if t.Backend != backend {
			flush()
			backend = t.Backend
		}
		if math.IsNaN(t.Seconds) {
			return nil
		}
		inSample := t.StartedAt.After(w.sample.From) && !t.StartedAt.After(w.sample.To)
		inBasis := t.StartedAt.After(w.basis.From) && !t.StartedAt.After(w.basis.To)
		for _, k := range keysOf(t.Job, t.Release, t.FromRelease, t.Upgrade, jobs[t.Job]) {
			v := byKey[k]
			if v == nil {
				v = &sides{}
				byKey[k] = v
			}
			v.all = append(v.all, t.Seconds)
			if inSample {
				v.sample = append(v.sample, t.Seconds)
			}
			if inBasis {
				v.basis = append(v.basis, t.Seconds)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	flush()
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

func disruptionRow(backend string, k scopeKey, comparison, sampleLabel, basisLabel string, sample, basis []float64, opts Options) db.DisruptionStat {
	sd, bd := Distribute(sample), Distribute(basis)
	return db.DisruptionStat{
		Backend: backend, Scope: k.scope, Key: k.key, Comparison: comparison,
		SampleLabel: sampleLabel, BasisLabel: basisLabel,
		SampleRuns: sd.Runs, SampleMedian: sd.Median, SampleP95: sd.P95, SampleMax: sd.Max,
		BasisRuns: bd.Runs, BasisMedian: bd.Median, BasisP95: bd.P95, BasisMax: bd.Max,
		P95Delta: sd.P95 - bd.P95, Verdict: DisruptionVerdict(sd, bd, opts),
	}
}
