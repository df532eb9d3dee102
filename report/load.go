package report

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl/db"
)

// ErrUnknownSymptom is returned (wrapped, with the known ids) for a symptom
// id that the database does not know.
var ErrUnknownSymptom = errors.New("unknown symptom")

// ErrNoJob is returned (wrapped) when no stored job matches Query.Job.
var ErrNoJob = errors.New("no job matches")

// Query selects what a report shows. The zero value is every symptom by
// edge.
type Query struct {
	// By is the scope of the rows: db.ScopeEdge (the default), ScopeJob or
	// ScopeVariant. Edges and variants are compared release against
	// release; jobs window against window.
	By string
	// Symptom keeps one symptom.
	Symptom string
	// Job keeps what concerns the jobs it matches: their own rows, and the
	// edges and variants their runs are on. For rates, only their runs count.
	Job *regexp.Regexp
	// Since keeps the runs started at or after it (rates, trends and
	// evidence) and the verdicts computed at or after it (a stale analysis
	// shows nothing).
	Since time.Time
	// Trend also reads each symptom's weekly rates, for the HTML charts.
	Trend bool
}

func (q Query) by() string { return cmp.Or(q.By, db.ScopeEdge) }

// Data is what a verdict report renders.
type Data struct {
	Query Query
	// Symptoms are the active symptoms, for their titles.
	Symptoms []db.Symptom
	// Rows are the verdicts of the scope's comparison, in report order.
	Rows []db.SymptomVerdict
	// Weekly is each symptom's rate per edge and week, when Query.Trend
	// asked for it, from Query.Since on.
	Weekly map[string][]db.WeeklyRate
	// Disruption and Open are, with Query.Trend, each compared edge's
	// disruption run by run and the open regressions (disruption_chart.go).
	Disruption []DisruptionChart
	Open       []OpenRegression
}

// Load reads the verdicts q selects, and the weekly rates when q.Trend asks.
func Load(ctx context.Context, store *db.DB, q Query) (Data, error) {
	d := Data{Query: q}
	syms, err := symptoms(ctx, store, q.Symptom)
	if err != nil {
		return d, err
	}
	d.Symptoms = syms
	filters, err := filters(ctx, store, q)
	if err != nil {
		return d, err
	}
	type rowKey struct{ symptom, scope, key, comparison string }
	seen := map[rowKey]bool{}
	for _, f := range filters {
		f.Scope = q.by()
		vs, err := store.Verdicts(ctx, f)
		if err != nil {
			return d, fmt.Errorf("report: %w", err)
		}
		for _, v := range vs {
			k := rowKey{v.Symptom, v.Scope, v.Key, v.Comparison}
			if v.Comparison != comparisonOf(v.Scope) || seen[k] {
				continue
			}
			seen[k] = true
			d.Rows = append(d.Rows, v)
		}
	}
	sortRows(d.Rows)
	if !q.Trend {
		return d, nil
	}
	d.Weekly = map[string][]db.WeeklyRate{}
	for _, s := range d.Symptoms {
		if q.Symptom != "" && s.ID != q.Symptom {
			continue
		}
		w, err := store.WeeklyRates(ctx, s.ID)
		if err != nil {
			return d, fmt.Errorf("report: %w", err)
		}
		d.Weekly[s.ID] = weeksSince(w, q.Since)
	}
	if d.Disruption, d.Open, err = loadHTMLExtras(ctx, store, q); err != nil {
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

// filters are the db filters of q: one, or one per job q.Job matches.
func filters(ctx context.Context, store *db.DB, q Query) ([]db.Filter, error) {
	base := db.Filter{Symptom: q.Symptom, Since: q.Since}
	if q.Job == nil {
		return []db.Filter{base}, nil
	}
	jobs, err := store.JobNames(ctx)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var out []db.Filter
	for _, j := range jobs {
		if q.Job.MatchString(j) {
			f := base
			f.Job = j
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w %q", ErrNoJob, q.Job.String())
	}
	return out, nil
}

// weeksSince drops the weeks that end before since.
func weeksSince(w []db.WeeklyRate, since time.Time) []db.WeeklyRate {
	if since.IsZero() {
		return w
	}
	return slices.DeleteFunc(w, func(r db.WeeklyRate) bool { return !r.WeekStart.AddDate(0, 0, 7).After(since) })
}

// AssessInput is what an assessment of one symptom is made from.
type AssessInput struct {
	Symptom db.Symptom
	// Verdicts are the symptom's verdicts in every scope and comparison.
	Verdicts []db.SymptomVerdict
	// Rates are its rates in every scope key, zero included.
	Rates []db.SymptomRate
	// Evidence are runs showing it, newest first.
	Evidence []db.Evidence
	// Weekly is its rate per edge and week.
	Weekly []db.WeeklyRate
	// MinRuns is how many finished runs a rate needs to be relied on (the
	// analysis's threshold for a verdict).
	MinRuns int
	// Since and Job are the query's, to say what was counted.
	Since time.Time
	Job   string
	// Extras are the runs' own numbers: their timelines, disruption,
	// failed tests and versions (assess_numbers.go).
	Extras AssessExtras
}

// evidenceRead is how many of a symptom's newest runs an assessment reads
// to pick its examples from.
const evidenceRead = 200

// LoadAssessment reads what the assessment of q.Symptom needs. minRuns is
// the analysis's threshold of runs for a verdict.
func LoadAssessment(ctx context.Context, store *db.DB, q Query, minRuns int) (AssessInput, error) {
	in := AssessInput{MinRuns: minRuns, Since: q.Since}
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
	filters, err := filters(ctx, store, q)
	if err != nil {
		return in, err
	}
	type verdictKey struct{ scope, key, comparison string }
	seen := map[verdictKey]bool{}
	var rates [][]db.SymptomRate
	for _, f := range filters {
		vs, err := store.Verdicts(ctx, f)
		if err != nil {
			return in, fmt.Errorf("assess %s: %w", q.Symptom, err)
		}
		for _, v := range vs {
			if k := (verdictKey{v.Scope, v.Key, v.Comparison}); !seen[k] {
				seen[k] = true
				in.Verdicts = append(in.Verdicts, v)
			}
		}
		rs, err := store.SymptomRates(ctx, f)
		if err != nil {
			return in, fmt.Errorf("assess %s: %w", q.Symptom, err)
		}
		rates = append(rates, rs)
	}
	in.Rates = sumRates(rates...)
	ev, err := store.RunEvidence(ctx, q.Symptom, "", evidenceRead)
	if err != nil {
		return in, fmt.Errorf("assess %s: %w", q.Symptom, err)
	}
	in.Evidence = slices.DeleteFunc(ev, func(e db.Evidence) bool {
		return q.Job != nil && !q.Job.MatchString(e.Job) || !q.Since.IsZero() && e.StartedAt.Before(q.Since)
	})
	weekly, err := store.WeeklyRates(ctx, q.Symptom)
	if err != nil {
		return in, fmt.Errorf("assess %s: %w", q.Symptom, err)
	}
	in.Weekly = weeksSince(weekly, q.Since)
	if in.Extras, err = loadAssessExtras(ctx, store, q); err != nil {
		return in, fmt.Errorf("assess %s: %w", q.Symptom, err)
	}
	return in, nil
}

// sumRates adds up the rates of disjoint sets of runs (one job's each) by
// symptom, scope and key.
func sumRates(sets ...[]db.SymptomRate) []db.SymptomRate {
	if len(sets) == 1 {
		return sets[0]
	}
	type rateKey struct{ symptom, scope, key string }
	sums := map[rateKey]*db.SymptomRate{}
	var order []rateKey
	for _, set := range sets {
		for _, r := range set {
			k := rateKey{r.Symptom, r.Scope, r.Key}
			s := sums[k]
			if s == nil {
				s = &db.SymptomRate{Symptom: r.Symptom, Scope: r.Scope, Key: r.Key}
				sums[k] = s
				order = append(order, k)
			}
			s.FinishedRuns += r.FinishedRuns
			s.RunsWith += r.RunsWith
			s.FailedWith += r.FailedWith
			s.PassedWith += r.PassedWith
			s.FailedRuns += r.FailedRuns
		}
	}
	out := make([]db.SymptomRate, 0, len(order))
	for _, k := range order {
		s := sums[k]
		s.Rate = float64(s.RunsWith) / float64(s.FinishedRuns)
		s.ShareOfFailures = nan
		if s.FailedRuns > 0 {
			s.ShareOfFailures = float64(s.FailedWith) / float64(s.FailedRuns)
		}
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b db.SymptomRate) int {
		return cmp.Or(cmp.Compare(a.Symptom, b.Symptom), cmp.Compare(a.Scope, b.Scope), cmp.Compare(a.Key, b.Key))
	})
	return out
}
