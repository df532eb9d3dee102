package report

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/db"
)

// ErrUnknownSymptom is returned (wrapped, with the known ids) for a symptom
// id that the database does not know.
var ErrUnknownSymptom = errors.New("unknown symptom")

// ErrNoJob is returned (wrapped) when no stored job matches Query.Job.
var ErrNoJob = errors.New("no job matches")

// Query selects what a report shows. The zero value is every symptom by
// edge, over every run stored.
type Query struct {
	// By is the scope of the rows: db.ScopeEdge (the default), ScopeJob,
	// ScopeVariant or ScopePresubmit. Edges and variants are compared
	// release against release; jobs and presubmits window against window.
	By string
	// Symptom keeps one symptom.
	Symptom string
	// Job keeps the runs of the jobs it matches: every number of the page
	// (rates, comparisons, trends, examples) counts only their runs.
	Job *regexp.Regexp
	// Since and Until bound the runs counted by start time (Since included,
	// Until excluded; zero: no bound): every number of the page is
	// computed from the runs between them, never filtered from the stored
	// all-time analysis.
	Since, Until time.Time
	// Trend also computes each symptom's weekly rates, for the HTML charts.
	Trend bool
	// Options are the analysis thresholds; zero: analyze.DefaultOptions.
	Options analyze.Options
}

func (q Query) by() string { return cmp.Or(q.By, db.ScopeEdge) }

func (q Query) options() analyze.Options {
	if q.Options.Alpha == 0 {
		return analyze.DefaultOptions()
	}
	return q.Options
}

// Data is what a verdict report renders.
type Data struct {
	Query Query
	// Symptoms are the active symptoms, for their titles.
	Symptoms []db.Symptom
	// Rows are the verdicts of the scope's comparison, in report order.
	Rows []db.SymptomVerdict
	// Weekly is each symptom's rate per edge and week, when Query.Trend
	// asked for it.
	Weekly map[string][]db.WeeklyRate
	// Window is the time comparison's windows, "S against B".
	Window string
	// Disruption and Open are, with Query.Trend, each compared edge's
	// disruption run by run and the open regressions (disruption_chart.go).
	Disruption []DisruptionChart
	Open       []OpenRegression
}

// compute is the analysis of the runs q bounds: the one source of every
// number a page shows. extras also computes the weekly rates and the
// disruption comparisons.
// each (when set) is called with every run's disruption the comparisons
// read (analyze.Query.EachDisruption).
func compute(ctx context.Context, store *db.DB, q Query, extras bool, each func(db.DisruptionCell, string)) (analyze.Result, error) {
	b, err := bounds(ctx, store, q)
	if err != nil {
		return analyze.Result{}, err
	}
	res, err := analyze.Compute(ctx, store, q.options(), analyze.Query{Bounds: b, Weeks: extras, Disruption: extras, EachDisruption: each})
	if err != nil {
		return res, fmt.Errorf("report: %w", err)
	}
	return res, nil
}

// Load computes, for the runs q bounds, the verdicts q selects, and the
// weekly rates when q.Trend asks.
func Load(ctx context.Context, store *db.DB, q Query) (Data, error) {
	d := Data{Query: q}
	syms, err := symptoms(ctx, store, q.Symptom)
	if err != nil {
		return d, err
	}
	d.Symptoms = syms
	res, err := compute(ctx, store, q, q.Trend, nil)
	if err != nil {
		return d, err
	}
	d.Window = res.SampleWindow + " against " + res.BasisWindow
	titles := map[string]db.Symptom{}
	for _, s := range syms {
		titles[s.ID] = s
	}
	for _, v := range res.Verdicts {
		if v.Scope != q.by() || v.Comparison != comparisonOf(v.Scope) || q.Symptom != "" && v.Symptom != q.Symptom {
			continue
		}
		v.Title, v.Bug = titles[v.Symptom].Title, titles[v.Symptom].Bug
		d.Rows = append(d.Rows, v)
	}
	sortRows(d.Rows)
	if !q.Trend {
		return d, nil
	}
	d.Weekly = map[string][]db.WeeklyRate{}
	for id, w := range res.Weekly {
		if q.Symptom == "" || id == q.Symptom {
			d.Weekly[id] = w
		}
	}
	if d.Disruption, d.Open, err = loadHTMLExtras(ctx, store, q, res.Disruption); err != nil {
		return d, fmt.Errorf("report: %w", err)
	}
	return d, nil
}

// symptoms returns the active symptoms, and checks that id (when set) is
// one the database knows.
func symptoms(ctx context.Context, store *db.DB, id string) ([]db.Symptom, error) {
	all, err := store.Symptoms(ctx)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var active, ids []string
	var out []db.Symptom
	for _, s := range all {
		ids = append(ids, s.ID)
		if s.Active {
			active = append(active, s.ID)
			out = append(out, s)
		}
	}
	if id != "" && !slices.Contains(ids, id) {
		if len(active) == 0 {
			return nil, fmt.Errorf("%w %q: the database has no symptoms yet (crawl first)", ErrUnknownSymptom, id)
		}
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownSymptom, id, strings.Join(active, ", "))
	}
	return out, nil
}

// bounds are the db bounds of q: its times, and the jobs q.Job matches.
func bounds(ctx context.Context, store *db.DB, q Query) (db.Bounds, error) {
	b := db.Bounds{Since: q.Since, Until: q.Until}
	if q.Job == nil {
		return b, nil
	}
	jobs, err := store.JobNames(ctx)
	if err != nil {
		return b, fmt.Errorf("report: %w", err)
	}
	b.Jobs = []string{}
	for _, j := range jobs {
		if q.Job.MatchString(j) {
			b.Jobs = append(b.Jobs, j)
		}
	}
	if len(b.Jobs) == 0 {
		return b, fmt.Errorf("%w %q", ErrNoJob, q.Job.String())
	}
	return b, nil
}

// AssessInput is what an assessment of one symptom is made from: every
// number of it counted from the same runs.
type AssessInput struct {
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
	// Since, Until and Job are the query's, to say what was counted.
	Since, Until time.Time
	Job          string
	// Window is the time comparison's windows, "S against B".
	Window string
	// Extras are the runs' own numbers: their timelines, disruption,
	// failed tests and versions (assess_numbers.go).
	Extras AssessExtras
}

// bounded says whether only some of the runs stored were counted.
func (in AssessInput) bounded() bool { return !in.Since.IsZero() || !in.Until.IsZero() || in.Job != "" }

// evidenceRead is how many of a symptom's newest runs an assessment reads
// to pick its examples from.
const evidenceRead = 200

// LoadAssessment computes what the assessment of q.Symptom needs, for the
// runs q bounds. minRuns is the analysis's threshold of runs for a verdict.
func LoadAssessment(ctx context.Context, store *db.DB, q Query, minRuns int) (AssessInput, error) {
	in := AssessInput{MinRuns: minRuns, Since: q.Since, Until: q.Until}
	if q.Symptom == "" {
		return in, fmt.Errorf("%w: no symptom given", ErrUnknownSymptom)
	}
	syms, err := symptoms(ctx, store, q.Symptom)
	if err != nil {
		return in, err
	}
	in.Symptom = db.Symptom{ID: q.Symptom}
	for _, s := range syms {
		if s.ID == q.Symptom {
			in.Symptom = s
		}
	}
	if q.Job != nil {
		in.Job = q.Job.String()
	}
	if minRuns > 0 {
		q.Options = q.options()
		q.Options.MinRuns = minRuns
	}
	b, err := bounds(ctx, store, q)
	if err != nil {
		return in, err
	}
	// The runs showing it first: the disruption of their edges, with and
	// without it, is gathered from the same read as the comparisons'.
	runs, err := store.SymptomRuns(ctx, q.Symptom, b)
	if err != nil {
		return in, fmt.Errorf("assess %s: %w", q.Symptom, err)
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
	res, err := compute(ctx, store, q, true, each)
	if err != nil {
		return in, err
	}
	in.Window = res.SampleWindow + " against " + res.BasisWindow
	for _, v := range res.Verdicts {
		if v.Symptom == q.Symptom {
			v.Title, v.Bug = in.Symptom.Title, in.Symptom.Bug
			in.Verdicts = append(in.Verdicts, v)
		}
	}
	withTotals, err := store.SymptomDisruption(ctx, q.Symptom, b)
	if err != nil {
		return in, fmt.Errorf("assess %s: %w", q.Symptom, err)
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
		s := db.DisruptionSample{Backend: k.backend, Edge: k.edge, Seconds: math.Float64frombits(k.seconds)}
		if w := with[k]; w > 0 {
			s.Shows, s.Runs = true, w
			samples = append(samples, s)
			n -= w
		}
		if n > 0 {
			s.Shows, s.Runs = false, n
			samples = append(samples, s)
		}
	}
	for _, r := range res.Rates {
		if r.Symptom == q.Symptom {
			in.Rates = append(in.Rates, r)
		}
	}
	in.Weekly = res.Weekly[q.Symptom]
	ev, err := store.RunEvidence(ctx, q.Symptom, "", b, evidenceRead)
	if err != nil {
		return in, fmt.Errorf("assess %s: %w", q.Symptom, err)
	}
	// Presubmits count only in their own scope, never in the impact on
	// releases, so their runs are no examples of it.
	in.Evidence = slices.DeleteFunc(ev, func(e db.Evidence) bool { return e.Type == prowcrawl.TypePresubmit })
	in.Extras = AssessExtras{Runs: runs, Disruption: samples}
	if err = loadAssessExtras(ctx, store, q, b, &in.Extras, res.Disruption); err != nil {
		return in, fmt.Errorf("assess %s: %w", q.Symptom, err)
	}
	return in, nil
}
