package analyze

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/db"
)

// SymptomNumbers are what an assessment of one symptom is made from: every
// number of it counted from the same runs.
type SymptomNumbers struct {
	Symptom db.Symptom
	// Verdicts are the symptom's verdicts in every scope and comparison.
	Verdicts []db.SymptomVerdict
	// Rates are its rates in every scope key, zero included.
	Rates []db.SymptomRate
	// Evidence are counted runs showing it, newest first.
	Evidence []db.Evidence
	// Weekly is its rate per edge and week.
	Weekly []db.WeeklyRate
	// MinRuns is how many finished runs a rate needs to be relied on (the
	// analysis's threshold for a verdict).
	MinRuns int
	// Since, Until and Job are the selection's, to say what was counted.
	Since, Until time.Time
	Job          string
	// Window is the time comparison's windows, "S against B".
	Window string
	// Extras are the runs' own numbers: their timelines, disruption,
	// failed tests and versions.
	Extras RunNumbers
	// Tally counts the runs selected by population: the page says how
	// many every rate left out, and why.
	Tally db.RunTally
	// Onset and End are where, by payload, the symptom began and stopped
	// on its regressed edge (nil when no edge shows it): Found says
	// whether the change is significant.
	Onset, End *Change
}

// Bounded says whether only some of the runs stored were counted.
func (n SymptomNumbers) Bounded() bool { return !n.Since.IsZero() || !n.Until.IsZero() || n.Job != "" }

// RunNumbers are the numbers of the runs themselves that an assessment
// answers "what is the impact" and "how involved is remediation" with.
type RunNumbers struct {
	// Runs are the finished runs showing the symptom, oldest first.
	Runs []db.SymptomRun
	// FromVersions count the runs of every edge, platform and from-version.
	FromVersions []db.EdgeFromVersion
	// Disruption is every counted run's disruption on the edges that show
	// it (presubmits are on no edge).
	Disruption []db.DisruptionSample
	// Stats are the disruption comparisons of the edges, computed for the
	// same runs (each edge against the same edge one release earlier).
	Stats []db.DisruptionStat
	// FailedTests failed in the runs showing it, the most often first.
	FailedTests []db.TestFailedWith
	// Regressions are the symptom's rows of the regressions table.
	Regressions []db.Regression
}

// evidenceRead is how many of a symptom's newest runs are read to pick an
// assessment's examples from.
const evidenceRead = 200

// failedTestsRead is how many of the tests that failed with a symptom are
// read, the most often first.
const failedTestsRead = 5

// LoadSymptom computes what the assessment of symptom id needs, for the
// runs s selects.
func LoadSymptom(ctx context.Context, store *db.DB, id string, s Selection) (SymptomNumbers, error) {
	in := SymptomNumbers{MinRuns: s.Thresholds().MinRuns, Since: s.Since, Until: s.Until}
	if id == "" {
		return in, fmt.Errorf("%w: no symptom given", ErrUnknownSymptom)
	}
	syms, err := ActiveSymptoms(ctx, store, id)
	if err != nil {
		return in, err
	}
	in.Symptom = db.Symptom{ID: id}
	for _, sym := range syms {
		if sym.ID == id {
			in.Symptom = sym
		}
	}
	if s.Job != nil {
		in.Job = s.Job.String()
	}
	if in.Tally, err = s.Tally(ctx, store); err != nil {
		return in, err
	}
	b, err := s.Bounds(ctx, store)
	if err != nil {
		return in, err
	}
	// The runs showing it first: the disruption of their edges, with and
	// without it, is gathered from the same read as the comparisons'.
	runs, err := store.SymptomRuns(ctx, id, b)
	if err != nil {
		return in, fmt.Errorf("assess %s: %w", id, err)
	}
	edges := map[string]bool{}
	for _, r := range runs {
		if r.Edge != "" {
			edges[r.Edge] = true
		}
	}
	// The runs of those edges by backend and total, from the comparisons'
	// read; of them, those showing it are the totals of its runs.
	type total struct {
		backend, edge string
		seconds       uint64 // math.Float64bits
	}
	all := map[total]int{}
	each := func(c db.DisruptionCell, edge string) {
		if edge != "" && edges[edge] && !math.IsNaN(c.Seconds) {
			all[total{c.Backend, edge, math.Float64bits(c.Seconds)}] += c.Runs
		}
	}
	res, err := Compute(ctx, store, s.Thresholds(), Query{Bounds: b, Weeks: true, Disruption: true, EachDisruption: each})
	if err != nil {
		return in, err
	}
	in.Window = res.SampleWindow + " against " + res.BasisWindow
	for _, v := range res.Verdicts {
		if v.Symptom == id {
			v.Title, v.Bug = in.Symptom.Title, in.Symptom.Bug
			in.Verdicts = append(in.Verdicts, v)
		}
	}
	withTotals, err := store.SymptomDisruption(ctx, id, b)
	if err != nil {
		return in, fmt.Errorf("assess %s: %w", id, err)
	}
	with := map[total]int{}
	for _, t := range withTotals {
		edge := prowcrawl.Edge{From: t.FromRelease, To: t.Release, Kind: t.Upgrade}.String()
		if edges[edge] && !math.IsNaN(t.Seconds) {
			with[total{t.Backend, edge, math.Float64bits(t.Seconds)}] += t.Runs
		}
	}
	var samples []db.DisruptionSample
	for k, n := range all {
		smp := db.DisruptionSample{Backend: k.backend, Edge: k.edge, Seconds: math.Float64frombits(k.seconds)}
		if w := with[k]; w > 0 {
			smp.Shows, smp.Runs = true, w
			samples = append(samples, smp)
			n -= w
		}
		if n > 0 {
			smp.Shows, smp.Runs = false, n
			samples = append(samples, smp)
		}
	}
	for _, r := range res.Rates {
		if r.Symptom == id {
			in.Rates = append(in.Rates, r)
		}
	}
	in.Weekly = res.Weekly[id]
	if err := in.loadChanges(ctx, store, b); err != nil {
		return in, err
	}
	ev, err := store.RunEvidence(ctx, id, "", b, evidenceRead)
	if err != nil {
		return in, fmt.Errorf("assess %s: %w", id, err)
	}
	// Presubmits count only in their own scope, never in the impact on
	// releases, so their runs are no examples of it.
	in.Evidence = slices.DeleteFunc(ev, func(e db.Evidence) bool { return e.Type == prowcrawl.TypePresubmit })
	in.Extras = RunNumbers{Runs: runs, Disruption: samples}
	if err = loadRunNumbers(ctx, store, id, b, &in.Extras, res.Disruption); err != nil {
		return in, fmt.Errorf("assess %s: %w", id, err)
	}
	return in, nil
}

// loadRunNumbers reads the rest of the runs' own numbers for the runs
// within b (every number of the assessment counts the same runs) into x,
// whose Runs and Disruption are read; stats are the disruption comparisons
// computed for them.
func loadRunNumbers(ctx context.Context, store *db.DB, id string, b db.Bounds, x *RunNumbers, stats []db.DisruptionStat) error {
	var err error
	if x.FromVersions, err = store.EdgeFromVersionsOf(ctx, x.Runs, b); err != nil {
		return err
	}
	for _, st := range stats {
		if st.Scope == db.ScopeEdge && st.Comparison == db.CompareRelease {
			x.Stats = append(x.Stats, st)
		}
	}
	if x.FailedTests, err = store.TestsFailedWith(ctx, id, b, failedTestsRead); err != nil {
		return err
	}
	regs, err := store.Regressions(ctx, "")
	if err != nil {
		return err
	}
	for _, r := range regs {
		if r.Symptom == id {
			x.Regressions = append(x.Regressions, r)
		}
	}
	return nil
}
