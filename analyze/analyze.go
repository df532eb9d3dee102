package analyze

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/openshift-eng/prowcrawl"
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
// them the BasisDays; a window is cut at since (the first run a page
// counts), so that its label says the span its runs can come from.
func windowsAt(now, since time.Time, opts Options) windows {
	now = now.UTC()
	mid := now.AddDate(0, 0, -opts.SampleDays)
	start := mid.AddDate(0, 0, -opts.BasisDays)
	label := func(from, to time.Time) string {
		if !since.IsZero() && from.Before(since) {
			from = since.UTC()
		}
		if !since.IsZero() && to.Before(since) {
			return "none (before " + since.UTC().Format(dateLabel) + ")"
		}
		return from.Format(dateLabel) + ".." + to.Format(dateLabel)
	}
	return windows{
		sample:      db.Window{From: mid, To: now},
		basis:       db.Window{From: start, To: mid},
		sampleLabel: label(mid, now),
		basisLabel:  label(start, mid),
	}
}

// Query bounds what Compute counts: the runs within Bounds (a report's
// --since, --until and --job), and whether to count the weeks too.
type Query struct {
	Bounds db.Bounds
	Weeks  bool
	// Disruption also compares each key's disruption with its basis, for
	// the runs within Bounds (Result.Disruption).
	Disruption bool
	// EachDisruption, when set with Disruption, is called with the counted
	// runs' disruption that the comparison reads, a cell of runs of one
	// job, edge and total of a backend at a time (NaN seconds included),
	// and their edge ("" for a presubmit or an unknown release): what else
	// a page needs of the runs' disruption comes from the same read.
	EachDisruption func(c db.DisruptionCell, edge string)
}

// Result is a computed analysis: every number a page shows, from one read
// of the database.
type Result struct {
	// Now is the end of the sample window of the time comparison.
	Now time.Time
	// SampleWindow and BasisWindow label the time comparison's windows.
	SampleWindow, BasisWindow string
	Symptoms                  []string
	// Verdicts are every comparison's, as symptom_verdicts stores them.
	Verdicts []db.SymptomVerdict
	// Rates are each symptom's rate in every scope key with counted or
	// left-out runs, zero included.
	Rates []db.SymptomRate
	// Weekly are each symptom's rates per edge and week (weeks merged while
	// they hold fewer than MinWeekRuns runs), when Query.Weeks asked.
	Weekly map[string][]db.WeeklyRate
	// Disruption are, when Query.Disruption asked, every key's disruption
	// comparisons as disruption_stats stores them, with each side's run
	// dates and values, counted from the same runs.
	Disruption []db.DisruptionStat
}

// MinWeekRuns is how many runs a point of a weekly trend rests on at least:
// consecutive weeks with fewer are merged into one point, so that a rate of
// one run in two does not look like a trend.
const MinWeekRuns = 5

// Compute analyses the runs q bounds without storing anything: the verdicts
// of every comparison, the rates and (when asked) the weekly trends, all
// counted from the same runs.
func Compute(ctx context.Context, store *db.DB, opts Options, q Query) (Result, error) {
	if err := opts.validate(); err != nil {
		return Result{}, err
	}
	a, err := load(ctx, store, opts, db.CountOptions{Bounds: q.Bounds, Weeks: q.Weeks})
	if err != nil {
		return Result{}, err
	}
	a.keepValues = true
	r := Result{Now: a.now, SampleWindow: a.w.sampleLabel, BasisWindow: a.w.basisLabel, Symptoms: a.counts.Symptoms}
	r.Verdicts = a.verdicts()
	r.Rates = a.rates()
	if q.Weeks {
		r.Weekly = weeklyRates(a.counts)
	}
	if q.Disruption {
		if r.Disruption, err = a.disruption(ctx, q.EachDisruption); err != nil {
			return Result{}, fmt.Errorf("analyze: %w", err)
		}
	}
	return r, nil
}

// stored are the verdicts an analysis stores: those of the built-in
// symptoms, and of the rules from a file that matched a counted run
// somewhere or have runs they have not read yet (their verdicts say so). A
// rules file of thousands of rules that never match would otherwise store
// a verdict per rule and key (every one "none" or "not enough runs"); a
// report computes those live when it is asked for them.
func (a *analysis) stored(verdicts []db.SymptomVerdict) []db.SymptomVerdict {
	some := func(m map[scopeKey]*tally) bool {
		for _, t := range m {
			if t.Runs > 0 {
				return true
			}
		}
		return false
	}
	keep := map[string]bool{}
	for _, id := range a.counts.Symptoms {
		keep[id] = a.counts.Rules[id].Source == "builtin" || some(a.s.hits[id]) || some(a.s.unclassified[id])
	}
	return slices.DeleteFunc(verdicts, func(v db.SymptomVerdict) bool { return !keep[v.Symptom] })
}

// Run recomputes the whole analysis and replaces the old one in one
// transaction: for every active symptom, its verdict in every edge and
// variant against the same-shaped one a release earlier, and in every job,
// presubmit, edge and variant over the last SampleDays against the
// BasisDays before; and the flake rate of every test in every scope key.
func Run(ctx context.Context, store *db.DB, opts Options) (Summary, error) {
	start := time.Now()
	if err := opts.validate(); err != nil {
		return Summary{}, err
	}
	if err := checkNow(ctx, store, opts.Now, time.Now()); err != nil {
		return Summary{}, err
	}
	a, err := load(ctx, store, opts, db.CountOptions{Tests: true})
	if err != nil {
		return Summary{}, err
	}
	verdicts := a.stored(a.verdicts())
	if err := store.ReplaceAnalysis(ctx, verdicts, flakeRates(a.counts)); err != nil {
		return Summary{}, fmt.Errorf("analyze: %w", err)
	}
	changes, err := a.keepLifecycle(ctx, verdicts)
	if err != nil {
		return Summary{}, fmt.Errorf("analyze: %w", err)
	}
	sum := Summary{Symptoms: len(a.counts.Symptoms), Verdicts: len(verdicts), Changes: changes, Duration: time.Since(start), RegressionsBy: make(map[string]int)}
	for _, v := range verdicts {
		if v.Verdict == VerdictRegression {
			sum.Regressions++
			sum.RegressionsBy[v.Scope]++
		}
	}
	return sum, nil
}

// checkNow refuses an end of the sample window that no stored run can be
// compared at: before the oldest run stored, or more than a day after the
// clock. Every window would then be empty, and every verdict with it.
func checkNow(ctx context.Context, store *db.DB, now, clock time.Time) error {
	if now.IsZero() {
		return nil
	}
	if now.After(clock.Add(24 * time.Hour)) {
		return fmt.Errorf("%w: now %s is more than a day after the clock", ErrOptions, now.UTC().Format(time.RFC3339))
	}
	oldest, err := store.OldestRunStart(ctx)
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	if !oldest.IsZero() && now.Before(oldest) {
		return fmt.Errorf("%w: now %s is before the oldest run stored (%s)", ErrOptions,
			now.UTC().Format(time.RFC3339), oldest.UTC().Format(time.RFC3339))
	}
	return nil
}

// analysis is one analysis in the making: the counts it read, summed into
// scope keys, the windows and bounds they were read for, and the options
// its verdicts are decided with. Its methods compute the verdicts, the
// rates, the disruption comparisons and the regressions' lifecycle from
// those same counts.
type analysis struct {
	store  *db.DB
	opts   Options
	now    time.Time // the end of the sample window
	w      windows
	b      db.Bounds // the runs counted at all
	counts db.AnalysisCounts
	s      scopeCounts // counts, summed into every scope key
	// keepValues keeps each side's disruption values in the edges' rows,
	// for a page's charts.
	keepValues bool
}

// load reads the counts the analysis of the runs o.Bounds bounds needs:
// its sample window ends at opts.Now, or else at the newest run within
// them. The windows of o are set here.
func load(ctx context.Context, store *db.DB, opts Options, o db.CountOptions) (*analysis, error) {
	now := opts.Now
	if now.IsZero() {
		var err error
		if now, err = store.NewestRunStartIn(ctx, o.Bounds); err != nil {
			return nil, fmt.Errorf("analyze: %w", err)
		}
	}
	w := windowsAt(now, o.Bounds.Since, opts)
	o.Sample, o.Basis = w.sample, w.basis
	counts, err := store.AnalysisCounts(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	return &analysis{store: store, opts: opts, now: now, w: w, b: o.Bounds, counts: counts, s: sumScopes(counts)}, nil
}

// scopeKey names a scope key: ("edge", "4.13->4.14 minor").
type scopeKey struct{ scope, key string }

// tally counts finished runs, or those showing a symptom, summed over the
// groups by job and edge of one scope key: the counts of a db.RunGroup
// (over all time, in the sample and the basis window, how many failed, the
// runs left out because their upgrade never began, the first and last
// start; its job and edge are left empty), and for hits which jobs they are
// of.
type tally struct {
	db.RunGroup
	jobs map[string]bool
}

func (t *tally) addRuns(g db.RunGroup) { t.Add(g) }

func (t *tally) addHits(g db.SymptomGroup) {
	t.Add(db.RunGroup{Runs: g.Runs, Failed: g.Failed, Sample: g.Sample, Basis: g.Basis})
	if t.jobs == nil {
		t.jobs = map[string]bool{}
	}
	t.jobs[g.Job] = true
}

// keysOfJob are the scope keys a job's runs on an edge count in, and the
// variant of the edge: a presubmit job's only in its presubmit scope, an
// aggregated job's in none; another job's in the job scope, and when the
// release is known, in the edge and the variant (prowcrawl.RunKeys, the one
// definition of those keys).
func keysOfJob(j prowcrawl.Job, rel, from, kind string) ([]scopeKey, prowcrawl.Variant) {
	if prowcrawl.IsAggregated(j.Name) {
		// It summarises runs counted already: in no scope at all.
		return nil, prowcrawl.Variant{}
	}
	if j.Type == prowcrawl.TypePresubmit {
		return []scopeKey{{db.ScopePresubmit, j.Name}}, prowcrawl.Variant{}
	}
	keys := []scopeKey{{db.ScopeJob, j.Name}}
	edge, variant := prowcrawl.RunKeys(j, rel, from, kind)
	if edge.String() == "" {
		return keys, variant
	}
	return append(keys, scopeKey{db.ScopeEdge, edge.String()}, scopeKey{db.ScopeVariant, variant.String()}), variant
}

// keysOf is keysOfJob of the job named job whose row is j (j.Name may be
// empty).
func keysOf(job, rel, from, kind string, j prowcrawl.Job) []scopeKey {
	j.Name = job
	keys, _ := keysOfJob(j, rel, from, kind)
	return keys
}

// jobAttrs are the jobs rows of the counts' jobs.
func jobAttrs(c db.AnalysisCounts) map[string]prowcrawl.Job {
	jobs := make(map[string]prowcrawl.Job, len(c.Runs))
	for _, g := range c.Runs {
		jobs[g.Job] = g.JobRow()
	}
	return jobs
}

// scopeCounts are the counts of every scope key, summed from the groups by
// job and edge that the database returns.
type scopeCounts struct {
	// runs are every finished run, whatever the rule: the keys there are.
	runs map[scopeKey]*tally
	// ruleRuns are, by symptom, the runs counted for its rule (its current
	// version read them, and they are in its reach); unclassified are those
	// its current version has not read yet.
	ruleRuns, unclassified map[string]map[scopeKey]*tally
	hits                   map[string]map[scopeKey]*tally // by symptom
	// edges are the edge and variant keys by their structure, to find a
	// key's basis.
	edges map[scopeKey]prowcrawl.Variant
	known []release // every release seen, for the release before an X.0
	// jobs are the jobs rows of the groups' jobs.
	jobs map[string]prowcrawl.Job
}

func sumScopes(c db.AnalysisCounts) scopeCounts {
	s := scopeCounts{runs: map[scopeKey]*tally{}, hits: map[string]map[scopeKey]*tally{}, edges: map[scopeKey]prowcrawl.Variant{},
		ruleRuns: map[string]map[scopeKey]*tally{}, unclassified: map[string]map[scopeKey]*tally{},
		jobs: map[string]prowcrawl.Job{}}
	for _, symptom := range c.Symptoms {
		s.ruleRuns[symptom] = map[scopeKey]*tally{}
		s.unclassified[symptom] = map[scopeKey]*tally{}
	}
	seen := map[release]bool{}
	for _, g := range c.Runs {
		j := g.JobRow()
		s.jobs[g.Job] = j
		keys, variant := keysOfJob(j, g.Release, g.FromRelease, g.Upgrade)
		for _, k := range keys {
			tallyOf(s.runs, k).addRuns(g)
			for _, symptom := range c.Symptoms {
				switch c.Population(symptom, g.Job, g.Topology, g.RuleSet) {
				case prowcrawl.Counted:
					tallyOf(s.ruleRuns[symptom], k).addRuns(g)
				case prowcrawl.NotClassified:
					tallyOf(s.unclassified[symptom], k).addRuns(g)
				}
			}
			switch k.scope {
			case db.ScopeEdge:
				s.edges[k] = prowcrawl.Variant{Edge: variant.Edge}
			case db.ScopeVariant:
				s.edges[k] = variant
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
		j, ok := s.jobs[g.Job]
		if !ok || !c.Rules[g.Symptom].Reach.AppliesTo(j.Topology) {
			continue // a job with no counted run cannot have a counted hit
		}
		keys, _ := keysOfJob(j, g.Release, g.FromRelease, g.Upgrade)
		for _, k := range keys {
			tallyOf(bySymptom, k).addHits(g)
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

// tallyOf is the tally of k in m, made when it has none.
func tallyOf(m map[scopeKey]*tally, k scopeKey) *tally {
	t := m[k]
	if t == nil {
		t = &tally{}
		m[k] = t
	}
	return t
}

// get is the tally of k, zero when it has none.
func get(m map[scopeKey]*tally, k scopeKey) tally {
	if t := m[k]; t != nil {
		return *t
	}
	return tally{}
}

// sortedKeys are the keys of s.runs in order.
func (s scopeCounts) sortedKeys() []scopeKey {
	keys := make([]scopeKey, 0, len(s.runs))
	for k := range s.runs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b scopeKey) int {
		return cmp.Or(cmp.Compare(a.scope, b.scope), cmp.Compare(a.key, b.key))
	})
	return keys
}

// verdicts decides every verdict: for each active symptom, each edge and
// variant with counted runs against its previous release (written even when
// that has no runs, so that the reader sees why it is insufficient), and
// each key with counted runs in the sample window against the basis window.
func (a *analysis) verdicts() []db.SymptomVerdict {
	s, w, b := a.s, a.w, a.b
	keys := s.sortedKeys()
	clip := func(t time.Time) time.Time {
		if !b.Since.IsZero() && t.Before(b.Since) {
			return b.Since.UTC()
		}
		return t
	}
	var out []db.SymptomVerdict
	for _, symptom := range a.counts.Symptoms {
		hits, counted, unread := s.hits[symptom], s.ruleRuns[symptom], s.unclassified[symptom]
		for _, k := range keys {
			// A key whose runs are all out of the rule's reach has no
			// verdict; one whose runs the rule has not read yet has one
			// that says so (insufficient, with its runs unclassified).
			runs, pending := get(counted, k), get(unread, k)
			if bk, ok := s.basisOf(k); ok && runs.Runs+pending.Runs > 0 {
				basis, basisPending := get(counted, bk), get(unread, bk)
				sample := Sample{Runs: runs.Runs, Hits: get(hits, k).Runs, BasisRuns: basis.Runs, BasisHits: get(hits, bk).Runs}
				v := a.verdictRow(symptom, comparison{k, db.CompareRelease, k.key, bk.key}, sample)
				v.SampleFrom, v.SampleTo, v.BasisFrom, v.BasisTo = runs.First, runs.Last, basis.First, basis.Last
				v.SampleLeftOut, v.BasisLeftOut = runs.LeftOut, basis.LeftOut
				v.SampleUnclassified, v.BasisUnclassified = pending.Runs, basisPending.Runs
				out = append(out, v)
			}
			if runs.Sample+pending.Sample > 0 {
				sample := Sample{Runs: runs.Sample, Hits: get(hits, k).Sample,
					BasisRuns: runs.Basis, BasisHits: get(hits, k).Basis}
				v := a.verdictRow(symptom, comparison{k, db.CompareWindow, w.sampleLabel, w.basisLabel}, sample)
				v.SampleFrom, v.SampleTo = clip(w.sample.From), w.sample.To
				if w.basis.To.After(clip(w.basis.From)) {
					v.BasisFrom, v.BasisTo = clip(w.basis.From), w.basis.To
				}
				v.SampleLeftOut, v.BasisLeftOut = runs.SampleLeftOut, runs.BasisLeftOut
				v.SampleUnclassified, v.BasisUnclassified = pending.Sample, pending.Basis
				out = append(out, v)
			}
		}
	}
	return out
}

// comparison is one comparison of a scope key: of which kind
// (db.CompareRelease or db.CompareWindow), and the labels of its sides.
type comparison struct {
	k                       scopeKey
	kind                    string
	sampleLabel, basisLabel string
}

// verdictRow is the verdict of symptom in the comparison c, decided on s.
func (a *analysis) verdictRow(symptom string, c comparison, s Sample) db.SymptomVerdict {
	verdict, p := decide(s, a.opts)
	return db.SymptomVerdict{
		Symptom: symptom, Scope: c.k.scope, Key: c.k.key, Comparison: c.kind,
		SampleLabel: c.sampleLabel, BasisLabel: c.basisLabel,
		SampleRuns: s.Runs, SampleHits: s.Hits, BasisRuns: s.BasisRuns, BasisHits: s.BasisHits,
		SampleRate: s.Rate(), BasisRate: s.BasisRate(), P: p, Verdict: verdict,
	}
}

// rates are each symptom's rate in every scope key, zero included.
func (a *analysis) rates() []db.SymptomRate {
	s := a.s
	keys := s.sortedKeys()
	var out []db.SymptomRate
	for _, symptom := range a.counts.Symptoms {
		for _, k := range keys {
			runs, hits := get(s.ruleRuns[symptom], k), get(s.hits[symptom], k)
			unread := get(s.unclassified[symptom], k)
			if runs.Runs+runs.LeftOut+unread.Runs+unread.LeftOut == 0 {
				continue // out of the rule's reach
			}
			r := db.SymptomRate{Symptom: symptom, Scope: k.scope, Key: k.key, FinishedRuns: runs.Runs, Unclassified: unread.Runs,
				RunsWith: hits.Runs, FailedWith: hits.Failed, PassedWith: hits.Runs - hits.Failed,
				FailedRuns: runs.Failed, LeftOut: runs.LeftOut, Infra: runs.Infra, First: runs.First, Last: runs.Last,
				Jobs: len(hits.jobs), Rate: math.NaN(), ShareOfFailures: math.NaN()}
			if len(hits.jobs) == 1 {
				for j := range hits.jobs {
					r.OnlyJob = j
				}
			}
			if runs.Runs > 0 {
				r.Rate = float64(hits.Runs) / float64(runs.Runs)
			}
			if runs.Failed > 0 {
				r.ShareOfFailures = float64(hits.Failed) / float64(runs.Failed)
			}
			out = append(out, r)
		}
	}
	return out
}

// weeklyRates are each symptom's rate per edge and week, consecutive weeks
// with fewer than MinWeekRuns runs merged into one point.
func weeklyRates(c db.AnalysisCounts) map[string][]db.WeeklyRate {
	jobs := map[string]prowcrawl.Job{}
	for _, g := range c.Runs {
		jobs[g.Job] = g.JobRow()
	}
	type weekKey struct{ edge, week string }
	type week struct {
		monday time.Time
		runs   map[string]int // by symptom: the runs counted for its rule
		hits   map[string]int
	}
	weeks := map[weekKey]*week{}
	for _, g := range c.Weeks {
		j, ok := jobs[g.Job]
		if !ok || j.Type == prowcrawl.TypePresubmit {
			continue
		}
		edge, _ := prowcrawl.RunKeys(j, g.Release, g.FromRelease, g.Upgrade)
		if edge.String() == "" {
			continue
		}
		k := weekKey{edge.String(), g.Week}
		w := weeks[k]
		if w == nil {
			w = &week{monday: g.Monday, runs: map[string]int{}, hits: map[string]int{}}
			weeks[k] = w
		}
		if g.Symptom == "" {
			for _, symptom := range c.Symptoms {
				if c.Population(symptom, g.Job, j.Topology, g.RuleSet) == prowcrawl.Counted {
					w.runs[symptom] += g.Runs
				}
			}
		} else if c.Rules[g.Symptom].Reach.AppliesTo(j.Topology) {
			w.hits[g.Symptom] += g.Runs
		}
	}
	byEdge := map[string][]weekKey{}
	for k := range weeks {
		byEdge[k.edge] = append(byEdge[k.edge], k)
	}
	out := map[string][]db.WeeklyRate{}
	for _, symptom := range c.Symptoms {
		for _, edge := range slices.Sorted(maps.Keys(byEdge)) {
			ks := byEdge[edge]
			slices.SortFunc(ks, func(a, b weekKey) int { return weeks[a].monday.Compare(weeks[b].monday) })
			var cur *db.WeeklyRate
			var points []db.WeeklyRate
			for _, k := range ks {
				w := weeks[k]
				if cur == nil {
					cur = &db.WeeklyRate{Edge: edge, Week: k.week, WeekStart: w.monday}
				} else {
					cur.Week = mergedWeeks(cur.Week, k.week)
				}
				cur.WeekEnd = w.monday.AddDate(0, 0, 7)
				cur.Runs += w.runs[symptom]
				cur.Hits += w.hits[symptom]
				if cur.Runs >= MinWeekRuns {
					points = append(points, *cur)
					cur = nil
				}
			}
			if cur != nil && cur.Runs > 0 {
				// The last weeks hold too few runs alone: they join the
				// point before them, or stand alone when there is none.
				if n := len(points); n > 0 {
					p := &points[n-1]
					p.Week = mergedWeeks(p.Week, cur.Week)
					p.WeekEnd, p.Runs, p.Hits = cur.WeekEnd, p.Runs+cur.Runs, p.Hits+cur.Hits
				} else {
					points = append(points, *cur)
				}
			}
			for i := range points {
				points[i].Rate = float64(points[i].Hits) / float64(points[i].Runs)
			}
			out[symptom] = append(out[symptom], points...)
		}
	}
	return out
}

// mergedWeeks labels merged weeks by the first and the last: "2026-W45..W47".
func mergedWeeks(first, last string) string {
	if i := len(first) - len("..W00"); i > 0 && first[i:i+2] == ".." {
		first = first[:i]
	}
	y, w, ok := cutWeek(last)
	fy, _, _ := cutWeek(first)
	if ok && y == fy {
		return first + "..W" + w
	}
	return first + ".." + last
}

func cutWeek(s string) (year, week string, ok bool) {
	if len(s) < 8 || s[4:6] != "-W" {
		return "", "", false
	}
	return s[:4], s[6:8], true
}

// flakeRates sums the tests' groups by job and edge into every scope key.
func flakeRates(c db.AnalysisCounts) []db.TestFlakeRate {
	jobs := map[string]prowcrawl.Job{}
	for _, g := range c.Runs {
		jobs[g.Job] = g.JobRow()
	}
	type testKey struct {
		scopeKey
		suite, name string
	}
	sums := map[testKey]*db.TestFlakeRate{}
	for _, g := range c.Tests {
		j, ok := jobs[g.Job]
		if !ok {
			j = prowcrawl.Job{Name: g.Job}
		}
		keys, _ := keysOfJob(j, g.Release, g.FromRelease, g.Upgrade)
		for _, k := range keys {
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
