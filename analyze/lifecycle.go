package analyze

import (
	"cmp"
	"context"
	"math"
	"time"

	"github.com/openshift-eng/prowcrawl/db"
)

// Hysteresis is the bar an open regression must still clear to stay open:
// Sippy's regression tracker lowers the confidence by 5 points (alpha 0.05
// becomes 0.10) and the minimum rise ("pity") by 2 points while a
// regression is open, so that one that hovers at the edge of significance
// does not open and close night after night.
func Hysteresis(opts Options) Options {
	loose := opts
	loose.Alpha = math.Min(opts.Alpha+0.05, 0.5)
	loose.MinDelta = math.Max(opts.MinDelta-2, 0)
	return loose
}

// regKey names a regression: a symptom in a scope key.
type regKey struct{ symptom, scope, key string }

// finding is the verdict a regression is kept by, and whether it is a
// regression at the design's bar (strict) or only at the looser one.
type finding struct {
	v      db.SymptomVerdict
	strict bool
}

// better says whether a is a stronger finding than b: strict before loose,
// then the smaller p-value, then the release comparison.
func (a finding) better(b finding) bool {
	if a.strict != b.strict {
		return a.strict
	}
	if c := cmp.Compare(a.v.P, b.v.P); c != 0 {
		return c < 0
	}
	return a.v.Comparison == db.CompareRelease && b.v.Comparison != db.CompareRelease
}

// lifecycle carries the regressions from the previous analyses to this one,
// dated now: a regression verdict (either comparison) opens a regression or
// reopens a closed one; an open one stays open while a comparison is still
// a regression under Hysteresis, and closes when none is.
func (a *analysis) lifecycle(ctx context.Context, verdicts []db.SymptomVerdict, now time.Time) ([]db.Regression, []db.RegressionChange, error) {
	loose := Hysteresis(a.opts)
	found := map[regKey]finding{}
	current := map[regKey]db.SymptomVerdict{} // the release comparison where there is one
	for _, v := range verdicts {
		if k := (regKey{v.Symptom, v.Scope, v.Key}); current[k].Comparison != db.CompareRelease {
			current[k] = v
		}
		s := Sample{Runs: v.SampleRuns, Hits: v.SampleHits, BasisRuns: v.BasisRuns, BasisHits: v.BasisHits}
		f := finding{v: v, strict: v.Verdict == VerdictRegression}
		if !f.strict {
			if verdict, _ := decide(s, loose); verdict != VerdictRegression {
				continue
			}
		}
		k := regKey{v.Symptom, v.Scope, v.Key}
		if old, ok := found[k]; !ok || f.better(old) {
			found[k] = f
		}
	}
	existing, err := a.store.Regressions(ctx, "")
	if err != nil {
		return nil, nil, err
	}
	var rows []db.Regression
	var changes []db.RegressionChange
	change := func(r db.Regression, what string) {
		changes = append(changes, db.RegressionChange{Symptom: r.Symptom, Scope: r.Scope, Key: r.Key, Change: what, At: now})
	}
	seen := map[regKey]bool{}
	for _, r := range existing {
		k := regKey{r.Symptom, r.Scope, r.Key}
		seen[k] = true
		f, ok := found[k]
		switch {
		case r.Status == db.RegressionOpen && ok:
			// Still significant, at one bar or the other: it stays open.
			r = withNumbers(r, f.v)
			r.LastSeenAt = now
			rows = append(rows, r)
		case r.Status == db.RegressionOpen:
			// Closed with the numbers that closed it, where it still has some.
			if v, ok := current[k]; ok {
				r = withNumbers(r, v)
			}
			r.Status, r.ClosedAt = db.RegressionClosed, now
			rows = append(rows, r)
			change(r, db.ChangeClosed)
		case ok && f.strict:
			r = withNumbers(r, f.v)
			r.Status, r.ClosedAt, r.ReopenedAt, r.LastSeenAt = db.RegressionOpen, time.Time{}, now, now
			r.Reopened++
			if err := a.firstRun(ctx, &r); err != nil {
				return nil, nil, err
			}
			rows = append(rows, r)
			change(r, db.ChangeReopened)
		}
	}
	for k, f := range found {
		if seen[k] || !f.strict {
			continue
		}
		r := withNumbers(db.Regression{Symptom: k.symptom, Scope: k.scope, Key: k.key}, f.v)
		r.Status, r.OpenedAt, r.LastSeenAt = db.RegressionOpen, now, now
		if err := a.firstRun(ctx, &r); err != nil {
			return nil, nil, err
		}
		rows = append(rows, r)
		change(r, db.ChangeOpened)
	}
	return rows, changes, nil
}

// withNumbers is r with the comparison and counts of v.
func withNumbers(r db.Regression, v db.SymptomVerdict) db.Regression {
	r.Comparison = v.Comparison
	r.SampleLabel, r.SampleRuns, r.SampleHits = v.SampleLabel, v.SampleRuns, v.SampleHits
	r.BasisLabel, r.BasisRuns, r.BasisHits = v.BasisLabel, v.BasisRuns, v.BasisHits
	r.P = v.P
	return r
}

// firstRun sets the first run of r's sample that showed the symptom: of
// every run of the scope key for a release comparison, of the sample
// window's for a window comparison.
func (a *analysis) firstRun(ctx context.Context, r *db.Regression) error {
	jobs := jobAttrs(a.counts)
	var groups []db.EdgeGroup
	for _, g := range a.counts.Hits {
		if g.Symptom != r.Symptom {
			continue
		}
		for _, k := range keysOf(g.Job, g.Release, g.FromRelease, g.Upgrade, jobs[g.Job]) {
			if k.scope == r.Scope && k.key == r.Key {
				groups = append(groups, db.EdgeGroup{Job: g.Job, Release: g.Release, FromRelease: g.FromRelease, Upgrade: g.Upgrade})
				break
			}
		}
	}
	var after time.Time
	if r.Comparison == db.CompareWindow {
		after = a.w.sample.From
	}
	run, url, ok, err := a.store.FirstSymptomRun(ctx, r.Symptom, groups, after)
	if err != nil {
		return err
	}
	if ok {
		r.FirstRun, r.FirstRunURL = run, url
	}
	return nil
}

// keepLifecycle writes what this analysis adds to the previous ones, given
// its verdicts: its row in analyses, the regressions' lifecycle and the
// disruption statistics. It returns how many regressions changed. The
// verdicts are written before, in their own transaction: a failure here
// leaves them stored and the lifecycle one analysis behind, which the next
// analysis catches up.
func (a *analysis) keepLifecycle(ctx context.Context, verdicts []db.SymptomVerdict) (int, error) {
	analysedAt := a.opts.AnalysedAt
	if analysedAt.IsZero() {
		analysedAt = time.Now()
	}
	analysedAt = analysedAt.UTC().Truncate(time.Second)
	rows, changes, err := a.lifecycle(ctx, verdicts, analysedAt)
	if err != nil {
		return 0, err
	}
	stats, err := a.disruption(ctx, nil)
	if err != nil {
		return 0, err
	}
	if _, err := a.store.SaveLifecycle(ctx, db.Lifecycle{ComputedAt: analysedAt, AsOf: a.now, Regressions: rows, Changes: changes, Disruption: stats}); err != nil {
		return 0, err
	}
	return len(changes), nil
}
