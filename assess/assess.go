package assess

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/db"
)

// Assessment is the UpgradeBlocker assessment of one symptom: the four
// questions a release engineer answers on a bug, answered with numbers. The
// JSON names are stable.
type Assessment struct {
	SymptomID   string `json:"symptom_id"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Bug         string `json:"bug,omitempty"`
	// Counted says which runs the numbers are of.
	Counted string `json:"counted"`
	// Summary is the answer in one sentence.
	Summary     string      `json:"summary"`
	Impacted    Impacted    `json:"who_is_impacted"`
	Impact      Impact      `json:"what_is_the_impact"`
	Remediation Remediation `json:"how_involved_is_remediation"`
	Regression  Regression  `json:"is_it_a_regression"`
	Flake       Flake       `json:"does_it_look_like_a_flake"`
	// Blocked are the drafts of the blocked-edges documents: one per
	// target release of the edges where it is a regression.
	Blocked []BlockedEdge `json:"-"`
}

// Impacted answers "who is impacted": the edges and variants showing the
// symptom, ranked by rate.
type Impacted struct {
	Edges    []Share `json:"edges"`
	Variants []Share `json:"variants"`
	// NotSeen are the edges with finished runs where no run shows it.
	NotSeen []Share `json:"not_seen_on"`
	// Block are the edges where it is a regression: the edges to block if
	// the bug is a blocker.
	Block []string `json:"edges_to_block"`
	// FirstSeen and LastSeen are the start dates of the first and the last
	// run that showed it; Jobs the jobs of those runs.
	FirstSeen string   `json:"first_seen,omitempty"`
	LastSeen  string   `json:"last_seen,omitempty"`
	Jobs      []string `json:"jobs"`
	// FirstPayload is the to_version of the first run that showed it on a
	// regressed edge (of the first run at all when none regressed).
	FirstPayload string `json:"first_payload,omitempty"`
	// Untested are the edges a comparison needed that have no runs: not
	// known to be unaffected.
	Untested []string `json:"untested_edges"`
	// Presubmits are the presubmit jobs whose runs show it: they test pull
	// requests, not releases, so they are named here and counted in no
	// edge, no variant and no impact.
	Presubmits []Share `json:"presubmits"`
	Text       string  `json:"answer"`
}

// Share is how many of a scope key's finished runs show the symptom.
type Share struct {
	Key          string   `json:"key"`
	FinishedRuns int      `json:"finished_runs"`
	RunsWith     int      `json:"runs_with"`
	FailedWith   int      `json:"failed_with"`
	PassedWith   int      `json:"passed_with"`
	Rate         *float64 `json:"rate"`
	// RateLow and RateHigh are the rate's 95 % Wilson interval.
	RateLow  *float64 `json:"rate_low"`
	RateHigh *float64 `json:"rate_high"`
	// LeftOut are the finished runs counted apart: their upgrade never
	// began, or (Infrastructure of them) they failed for CI's
	// infrastructure.
	LeftOut        int `json:"left_out"`
	Infrastructure int `json:"infrastructure"`
	// From and To are the dates (RFC 3339) of the first and last run counted.
	From string `json:"from"`
	To   string `json:"to"`
	// OnlyJob names the one job whose runs show it, when only one does.
	OnlyJob string `json:"only_job,omitempty"`
	// FewRuns is set when the key has fewer finished runs than a verdict
	// needs: its rate is not to be relied on.
	FewRuns bool   `json:"few_runs,omitempty"`
	Text    string `json:"text"`
}

// Impact answers "what is the impact": how many runs showed the symptom,
// how many of them failed, and examples to open.
type Impact struct {
	FinishedRuns    int      `json:"finished_runs"`
	RunsWith        int      `json:"runs_with"`
	FailedWith      int      `json:"failed_with"`
	PassedWith      int      `json:"passed_with"`
	FailedRuns      int      `json:"failed_runs"`
	ShareOfFailures *float64 `json:"share_of_failures"`
	RateLow         *float64 `json:"rate_low"`
	RateHigh        *float64 `json:"rate_high"`
	LeftOut         int      `json:"left_out"`
	Infrastructure  int      `json:"infrastructure"`
	Text            string   `json:"answer"`
	// Disruption is what the backends saw in the runs showing it.
	Disruption []BackendImpact `json:"disruption"`
	// FailedTests are the tests that failed in the runs showing it.
	FailedTests []TestShare `json:"failed_tests"`
	Examples    []Example   `json:"examples"`
}

// Example is a run that shows the symptom, with its first evidence.
type Example struct {
	URL     string `json:"url"`
	Job     string `json:"job"`
	BuildID int64  `json:"build_id,string"` // a string, as Prow writes it: 19 digits do not survive a float64 reader (jq 1.6, JavaScript)
	Result  string `json:"result"`
	Edge    string `json:"edge"`
	Started string `json:"started_at"`
	Hits    int    `json:"hits"`
	File    string `json:"file"` // inside the run's directory
	Line    int    `json:"line,omitempty"`
	Excerpt string `json:"excerpt"`
}

// Regression answers "is it a regression": per edge, against the same edge
// one release earlier.
type Regression struct {
	// Answer is yes (a regression on some edge), watch (new on some edge,
	// not yet significant), no, or unknown (too few runs).
	Answer   string    `json:"answer"`
	Text     string    `json:"summary"`
	Edges    []Finding `json:"edges"`
	Variants []Finding `json:"variants"` // the regressions and new ones
	// Unseen are the edges where no run shows it, nor one release earlier.
	Unseen []string `json:"not_seen_on"`
	// Tracked says how the regressions table holds it: open since when,
	// reopened, closed.
	Tracked []string `json:"tracked"`
	// Onset and End are where, by payload, it began and stopped on its
	// regressed edge (null when no edge shows it).
	Onset *Change `json:"onset"`
	End   *Change `json:"end"`
}

// Finding is one comparison of a sample with its basis, in words: the
// numbers of its Row, under the assessment's names.
type Finding struct {
	Key        string `json:"key"`
	Comparison string `json:"comparison"`
	Sides
	PValue  *float64 `json:"p_value"`
	Verdict string   `json:"verdict"`
	// Reason says why the verdict is insufficient (see Row.Reason).
	Reason string `json:"reason"`
	Text   string `json:"text"`
	Margins
}

// Flake answers "does it look like a flake": whether it is intermittent,
// and how it moved over time in each job.
type Flake struct {
	// Answer is yes, no, or unknown.
	Answer string          `json:"answer"`
	Text   string          `json:"summary"`
	Edges  []Intermittency `json:"edges"`
	// Jobs are the last days against the weeks before, for the jobs that
	// showed it in either window.
	Jobs []Finding `json:"jobs"`
	// QuietJobs is how many other jobs had runs in the windows without it.
	QuietJobs int    `json:"quiet_jobs"`
	Window    string `json:"window,omitempty"`
}

// Intermittency is how an edge shows the symptom over the weeks.
type Intermittency struct {
	Edge          string   `json:"edge"`
	Rate          *float64 `json:"rate"`
	WeeksWithRuns int      `json:"weeks_with_runs"`
	WeeksWithHits int      `json:"weeks_with_hits"`
	Text          string   `json:"text"`
}

// Answers to the yes-or-no questions.
const (
	AnswerYes     = "yes"
	AnswerNo      = "no"
	AnswerWatch   = "watch"
	AnswerUnknown = "unknown"
)

// examples is how many runs an assessment links to.
const examples = 5

// Assess answers the UpgradeBlocker questions from in.
func Assess(in analyze.SymptomNumbers) Assessment {
	minRuns := cmp.Or(in.MinRuns, analyze.DefaultOptions().MinRuns)
	a := Assessment{SymptomID: in.Symptom.ID, Title: in.Symptom.Title, Description: in.Symptom.Description, Bug: in.Symptom.Bug}

	var edges, variants, jobWindows []db.SymptomVerdict
	for _, v := range in.Verdicts {
		switch {
		case v.Scope == db.ScopeEdge && v.Comparison == db.CompareRelease:
			edges = append(edges, v)
		case v.Scope == db.ScopeVariant && v.Comparison == db.CompareRelease:
			variants = append(variants, v)
		case v.Scope == db.ScopeJob && v.Comparison == db.CompareWindow:
			jobWindows = append(jobWindows, v)
		}
	}
	analyze.SortVerdicts(edges)
	analyze.SortVerdicts(variants)
	analyze.SortVerdicts(jobWindows)

	regressed := map[string]bool{}
	block := []string{}
	for _, v := range edges {
		if v.Verdict == analyze.VerdictRegression {
			regressed[v.Key] = true
			block = append(block, v.Key)
		}
	}

	a.Counted = counted(in)
	a.Impacted = impacted(in.Rates, minRuns, block, variants)
	w := who(in.Extras, in.Verdicts, regressed)
	a.Impacted.FirstSeen, a.Impacted.LastSeen, a.Impacted.Jobs = w.FirstSeen, w.LastSeen, w.Jobs
	a.Impacted.FirstPayload, a.Impacted.Untested = w.FirstPayload, w.Untested
	if a.Impacted.Jobs == nil {
		a.Impacted.Jobs = []string{}
	}
	if a.Impacted.Untested == nil {
		a.Impacted.Untested = []string{}
	}
	a.Impact = impact(in, regressed)
	// The disruption of the edges that show it, each against the same edge
	// one release earlier: the regressed first.
	shown := slices.Clone(block)
	for _, s := range a.Impacted.Edges {
		if !slices.Contains(shown, s.Key) {
			shown = append(shown, s.Key)
		}
	}
	a.Impact.Disruption = backendImpacts(in.Extras, shown)
	if a.Impact.Disruption == nil {
		a.Impact.Disruption = []BackendImpact{}
	}
	a.Impact.FailedTests = []TestShare{}
	for _, t := range in.Extras.FailedTests {
		a.Impact.FailedTests = append(a.Impact.FailedTests, TestShare{Name: t.Name, Runs: t.Runs,
			Text: fmt.Sprintf("%s: failed in %d of the %d runs", t.Name, t.Runs, a.Impact.RunsWith)})
	}
	a.Remediation = remediation(in.Extras)
	a.Regression = regression(edges, variants, in.Bounded())
	a.Regression.Onset, a.Regression.End = ChangeOf(in.Onset), ChangeOf(in.End)
	if o := a.Regression.Onset; o != nil && o.Found && a.Regression.Answer == AnswerYes {
		a.Regression.Text = strings.TrimSuffix(a.Regression.Text, ".") + ", from payload " + o.FirstBad + " (the last clean one: " + o.LastClean + ")."
	}
	for _, c := range []*Change{a.Regression.Onset, a.Regression.End} {
		if c != nil && (c.Found || c == a.Regression.Onset) {
			a.Regression.Text += " " + c.Text
		}
	}
	a.Regression.Tracked = lifecycleWords(in.Extras.Regressions)
	if a.Regression.Tracked == nil {
		a.Regression.Tracked = []string{}
	}
	a.Flake = flake(in, edges, jobWindows)
	a.Summary = summary(a, edges, minRuns, in.Bounded())
	a.Blocked = blockedEdges(in, a)
	return a
}

// counted says which runs were counted.
func counted(in analyze.SymptomNumbers) string {
	s := "every finished run stored"
	if in.Job != "" {
		s = fmt.Sprintf("the finished runs of jobs matching %q", in.Job)
	}
	if !in.Since.IsZero() {
		s += " started since " + in.Since.UTC().Format(time.DateOnly)
	}
	if !in.Until.IsZero() {
		s += " started before " + in.Until.UTC().Format(time.DateOnly)
	}
	return s + " (success, failure or error; not aborted or pending) whose upgrade began, not infrastructure failures nor aggregated, in the rule's reach (its topologies) and read by " +
		"its current version; presubmits only in their own scope, never in an edge. " + strings.TrimSuffix(prowcrawl.LeftOut(in.Tally.Populations), ".")
}

func share(r db.SymptomRate, minRuns int) Share {
	lo, hi := analyze.Wilson(r.RunsWith, r.FinishedRuns)
	s := Share{Key: r.Key, FinishedRuns: r.FinishedRuns, RunsWith: r.RunsWith, FailedWith: r.FailedWith,
		PassedWith: r.PassedWith, Rate: Round6(r.Rate), RateLow: Round6(lo), RateHigh: Round6(hi),
		LeftOut: r.LeftOut, Infrastructure: r.Infra, From: RFC3339(r.First), To: RFC3339(r.Last), FewRuns: r.FinishedRuns < minRuns}
	if r.Jobs == 1 {
		s.OnlyJob = r.OnlyJob
	}
	left := ""
	if r.LeftOut > 0 {
		left = fmt.Sprintf("; %d more left out: %s", r.LeftOut, prowcrawl.LeftOutWhy(r.LeftOut, r.Infra))
	}
	if r.RunsWith == 0 {
		s.Text = fmt.Sprintf("%s (0/%d, %s%s)", r.Key, r.FinishedRuns, Interval(0, r.FinishedRuns), left)
		return s
	}
	s.Text = fmt.Sprintf("%s: %s of finished runs (%d/%d, %s, %s%s", r.Key, Percent(r.Rate), r.RunsWith, r.FinishedRuns,
		Interval(r.RunsWith, r.FinishedRuns), Span(r.First, r.Last), left)
	if s.FewRuns {
		s.Text += "; too few runs to rely on"
	}
	s.Text += ")"
	if s.OnlyJob != "" {
		s.Text += "; seen only in " + s.OnlyJob
	}
	return s
}

// ranked sorts rates by rate, the most runs first among equals.
func ranked(rates []db.SymptomRate) {
	slices.SortFunc(rates, func(a, b db.SymptomRate) int {
		return cmp.Or(-cmp.Compare(a.Rate, b.Rate), -cmp.Compare(a.FinishedRuns, b.FinishedRuns), cmp.Compare(a.Key, b.Key))
	})
}

func impacted(rates []db.SymptomRate, minRuns int, block []string, variants []db.SymptomVerdict) Impacted {
	im := Impacted{Block: block, Edges: []Share{}, Variants: []Share{}, NotSeen: []Share{}, Presubmits: []Share{}}
	var edges, vars, pres []db.SymptomRate
	for _, r := range rates {
		switch r.Scope {
		case db.ScopeEdge:
			edges = append(edges, r)
		case db.ScopeVariant:
			vars = append(vars, r)
		case db.ScopePresubmit:
			if r.RunsWith > 0 {
				pres = append(pres, r)
			}
		}
	}
	ranked(edges)
	ranked(vars)
	ranked(pres)
	for _, r := range pres {
		s := share(r, minRuns)
		s.Text = fmt.Sprintf("%s (%d of %d runs)", r.Key, r.RunsWith, r.FinishedRuns)
		im.Presubmits = append(im.Presubmits, s)
	}
	for _, r := range edges {
		if r.RunsWith > 0 {
			im.Edges = append(im.Edges, share(r, minRuns))
		} else {
			im.NotSeen = append(im.NotSeen, share(r, minRuns))
		}
	}
	slices.SortFunc(im.NotSeen, func(a, b Share) int { return cmp.Compare(a.Key, b.Key) })
	for _, r := range vars {
		if r.RunsWith > 0 {
			im.Variants = append(im.Variants, share(r, minRuns))
		}
	}
	switch {
	case len(im.Edges) == 0:
		im.Text = "No finished run shows it."
	case len(block) > 0:
		var regressedVariants []string
		for _, v := range variants {
			if v.Verdict == analyze.VerdictRegression {
				regressedVariants = append(regressedVariants, v.Key)
			}
		}
		im.Text = "Edges to block if it is a blocker (where it is a regression): " + strings.Join(block, ", ") + "."
		if len(regressedVariants) > 0 {
			im.Text += " Variants: " + strings.Join(regressedVariants, ", ") + "."
		}
	default:
		im.Text = "It is a regression on no edge, so these numbers give no edge to block."
	}
	return im
}

func impact(in analyze.SymptomNumbers, regressed map[string]bool) Impact {
	var im Impact
	jobs := map[string]bool{}
	for _, r := range in.Rates {
		if r.Scope != db.ScopeJob { // every counted run of a release is in one job
			continue
		}
		im.FinishedRuns += r.FinishedRuns
		im.RunsWith += r.RunsWith
		im.FailedWith += r.FailedWith
		im.PassedWith += r.PassedWith
		im.FailedRuns += r.FailedRuns
		im.LeftOut += r.LeftOut
		im.Infrastructure += r.Infra
		if r.RunsWith > 0 {
			jobs[r.Key] = true
		}
	}
	if im.FailedRuns > 0 {
		im.ShareOfFailures = Round6(float64(im.FailedWith) / float64(im.FailedRuns))
	}
	lo, hi := analyze.Wilson(im.RunsWith, im.FinishedRuns)
	im.RateLow, im.RateHigh = Round6(lo), Round6(hi)
	switch {
	case im.FinishedRuns == 0:
		im.Text = "No finished runs are stored."
	case im.RunsWith == 0:
		im.Text = fmt.Sprintf("None of %d finished runs showed it.", im.FinishedRuns)
	default:
		im.Text = fmt.Sprintf("%d of %d finished runs showed it (%s, %s): %d failed and %d passed anyway.",
			im.RunsWith, im.FinishedRuns, Percent(float64(im.RunsWith)/float64(im.FinishedRuns)), Interval(im.RunsWith, im.FinishedRuns),
			im.FailedWith, im.PassedWith)
		if len(jobs) == 1 {
			for j := range jobs {
				im.Text += " It was seen only in one job, " + j + "."
			}
		}
		if im.FailedRuns > 0 {
			im.Text += fmt.Sprintf(" It is in %d of the %d failed runs (%s).",
				im.FailedWith, im.FailedRuns, Percent(float64(im.FailedWith)/float64(im.FailedRuns)))
		}
	}
	if im.LeftOut > 0 {
		im.Text += fmt.Sprintf(" %d more finished runs are left out: %s.", im.LeftOut, prowcrawl.LeftOutWhy(im.LeftOut, im.Infrastructure))
	}
	im.Examples = pickExamples(in.Evidence, regressed)
	return im
}

// pickExamples chooses the runs to link to: failed runs on a regressed edge,
// then other failed runs, newest first; and one that passed anyway, if any.
func pickExamples(ev []db.Evidence, regressed map[string]bool) []Example {
	var first, failed, passed []db.Evidence
	for _, e := range ev {
		switch {
		case !prowcrawl.Finished(e.Result):
			// Aborted and pending runs are not counted, so not shown.
		case e.Result == prowcrawl.ResultSuccess:
			passed = append(passed, e)
		case regressed[e.Edge]:
			first = append(first, e)
		default:
			failed = append(failed, e)
		}
	}
	n := examples
	if len(passed) > 0 {
		n--
	}
	pick := append(first, failed...)
	pick = pick[:min(n, len(pick))]
	if len(passed) > 0 {
		pick = append(pick, passed[0])
	}
	out := []Example{}
	for _, e := range pick {
		out = append(out, Example{URL: e.URL, Job: e.Job, BuildID: e.BuildID, Result: string(e.Result), Edge: e.Edge,
			Started: e.StartedAt.UTC().Format(time.RFC3339), Hits: e.Hits, File: runFile(e), Line: e.Line,
			Excerpt: e.Excerpt})
	}
	return out
}

// runFile is e's evidence file inside the run's directory.
func runFile(e db.Evidence) string {
	id := "/" + strconv.FormatInt(e.BuildID, 10) + "/"
	if i := strings.Index(e.File, id); i >= 0 {
		return e.File[i+len(id):]
	}
	return e.File
}

func finding(v db.SymptomVerdict, bounded bool) Finding {
	r := RowOf(v, bounded)
	return Finding{Key: v.Key, Comparison: v.Comparison, Sides: r.Sides, PValue: r.PValue, Verdict: v.Verdict,
		Reason: r.Reason, Text: releaseWords(v, bounded), Margins: r.Margins}
}

// sides is "S 43% (6/14, 95% CI 21-67%, 2026-11-02..2026-11-28) against B
// 0% (0/14, ...)": each side with its interval and the dates of its runs.
func sides(v db.SymptomVerdict) string {
	side := func(hits, runs int, from, to time.Time, left int) string {
		if runs == 0 {
			return "(no runs)"
		}
		s := fmt.Sprintf("%s (%d/%d, %s, %s", Percent(float64(hits)/float64(runs)), hits, runs, Interval(hits, runs), Span(from, to))
		if left > 0 {
			s += fmt.Sprintf("; %d left out", left)
		}
		return s + ")"
	}
	return fmt.Sprintf("%s %s against %s %s", v.SampleLabel, side(v.SampleHits, v.SampleRuns, v.SampleFrom, v.SampleTo, v.SampleLeftOut),
		v.BasisLabel, side(v.BasisHits, v.BasisRuns, v.BasisFrom, v.BasisTo, v.BasisLeftOut))
}

// releaseWords answers "is it a regression" for one release comparison.
func releaseWords(v db.SymptomVerdict, bounded bool) string {
	switch v.Verdict {
	case analyze.VerdictRegression:
		return fmt.Sprintf("Yes: %s, %s", sides(v), PPhrase(v.P))
	case analyze.VerdictNew:
		return fmt.Sprintf("Not yet significant, but new: %s, %s. It was absent one release earlier: watch it", sides(v), PPhrase(v.P))
	case analyze.VerdictFlake:
		return fmt.Sprintf("No: not significantly more frequent than one release earlier (%s, %s)", sides(v), PPhrase(v.P))
	case analyze.VerdictPersistent:
		return fmt.Sprintf("No: nearly every run shows it, and not significantly more than before (%s, %s)", sides(v), PPhrase(v.P))
	case analyze.VerdictImproved:
		return fmt.Sprintf("No, it improved: %s, %s", sides(v), PPhrase(v.P))
	case analyze.VerdictNone:
		return fmt.Sprintf("No: no run shows it (%s)", sides(v))
	}
	if m := basisMissing(v, bounded); m != "" {
		return fmt.Sprintf("No basis to compare with: %s (%s)", m, sides(v))
	}
	return fmt.Sprintf("Not enough runs to say (%s)", sides(v))
}

func regression(edges, variants []db.SymptomVerdict, bounded bool) Regression {
	r := Regression{Edges: []Finding{}, Variants: []Finding{}, Unseen: []string{}}
	has := map[string][]string{}
	for _, v := range edges {
		has[v.Verdict] = append(has[v.Verdict], v.Key)
		if v.SampleHits == 0 && v.BasisHits == 0 {
			r.Unseen = append(r.Unseen, v.Key)
			continue
		}
		r.Edges = append(r.Edges, finding(v, bounded))
	}
	slices.Sort(r.Unseen)
	for _, v := range variants {
		if v.Verdict == analyze.VerdictRegression || v.Verdict == analyze.VerdictNew {
			r.Variants = append(r.Variants, finding(v, bounded))
		}
	}
	hits := false
	for _, v := range edges {
		hits = hits || v.SampleHits > 0
	}
	switch {
	case len(has[analyze.VerdictRegression]) > 0:
		r.Answer = AnswerYes
		r.Text = "Yes, on " + strings.Join(has[analyze.VerdictRegression], ", ") + "."
	case len(has[analyze.VerdictNew]) > 0:
		r.Answer = AnswerWatch
		r.Text = "Not yet: it is new on " + strings.Join(has[analyze.VerdictNew], ", ") + ", absent one release earlier, but not significantly more frequent yet."
	case len(has[analyze.VerdictFlake])+len(has[analyze.VerdictPersistent])+len(has[analyze.VerdictImproved]) > 0:
		r.Answer = AnswerNo
		r.Text = "No: wherever it shows, it is not significantly more frequent than one release earlier."
	case !hits:
		r.Answer = AnswerNo
		r.Text = "No: no run of a compared edge shows it."
	default:
		r.Answer = AnswerUnknown
		r.Text = "Not enough runs to say."
	}
	return r
}

// windowWords says what a job's window comparison found.
func windowWords(v db.SymptomVerdict) string {
	var what string
	switch v.Verdict {
	case analyze.VerdictRegression:
		what = "more often than before, significantly (" + PPhrase(v.P) + ")"
	case analyze.VerdictNew:
		what = "new in the last days, not yet significant (" + PPhrase(v.P) + ")"
	case analyze.VerdictFlake:
		what = "as often as before (" + PPhrase(v.P) + ")"
	case analyze.VerdictPersistent:
		what = "in nearly every run"
	case analyze.VerdictImproved:
		what = "less often than before (" + PPhrase(v.P) + ")"
	case analyze.VerdictNone:
		what = "not in the last days"
	default:
		what = "too few runs to compare"
		if v.BasisRuns == 0 {
			what = "no run in the weeks before to compare with"
		}
	}
	side := func(hits, runs int) string {
		if runs == 0 {
			return "no runs"
		}
		return fmt.Sprintf("%s (%d/%d, %s)", Percent(float64(hits)/float64(runs)), hits, runs, Interval(hits, runs))
	}
	return fmt.Sprintf("%s: %s against %s: %s", v.Key, side(v.SampleHits, v.SampleRuns), side(v.BasisHits, v.BasisRuns), what)
}

func flake(in analyze.SymptomNumbers, edges, jobWindows []db.SymptomVerdict) Flake {
	f := Flake{Edges: []Intermittency{}, Jobs: []Finding{}}
	persistent := cmp.Or(analyze.DefaultOptions().Persistent, 90) / 100
	type weeks struct{ runs, hits int }
	byEdge := map[string]*weeks{}
	for _, w := range in.Weekly {
		e := byEdge[w.Edge]
		if e == nil {
			e = &weeks{}
			byEdge[w.Edge] = e
		}
		e.runs++
		if w.Hits > 0 {
			e.hits++
		}
	}
	var rates []db.SymptomRate
	for _, r := range in.Rates {
		if r.Scope == db.ScopeEdge && r.RunsWith > 0 {
			rates = append(rates, r)
		}
	}
	ranked(rates)
	intermittent, always := false, false
	for _, r := range rates {
		it := Intermittency{Edge: r.Key, Rate: Round6(r.Rate)}
		how := "intermittent"
		if r.Rate >= persistent {
			how, always = "in nearly every run", true
		} else {
			intermittent = true
		}
		it.Text = fmt.Sprintf("%s: %s of runs (%d/%d, %s)", r.Key, Percent(r.Rate), r.RunsWith, r.FinishedRuns, Interval(r.RunsWith, r.FinishedRuns))
		if w := byEdge[r.Key]; w != nil {
			it.WeeksWithRuns, it.WeeksWithHits = w.runs, w.hits
			it.Text += fmt.Sprintf(", in %d of %d weekly points (weeks with fewer than %d runs merged)", w.hits, w.runs, analyze.MinWeekRuns)
		}
		it.Text += ": " + how
		f.Edges = append(f.Edges, it)
	}
	for _, v := range jobWindows {
		if f.Window == "" {
			f.Window = fmt.Sprintf("%s against %s", v.SampleLabel, v.BasisLabel)
		}
		if v.SampleHits == 0 && v.BasisHits == 0 {
			f.QuietJobs++
			continue
		}
		j := finding(v, in.Bounded())
		j.Text = windowWords(v)
		f.Jobs = append(f.Jobs, j)
	}

	if f.Window == "" {
		f.Window = in.Window
	}
	verdicts := map[string][]string{}
	for _, v := range edges {
		verdicts[v.Verdict] = append(verdicts[v.Verdict], v.Key)
	}
	var risen []string
	for _, v := range jobWindows {
		if v.Verdict == analyze.VerdictRegression {
			risen = append(risen, v.Key)
		}
	}
	switch {
	case len(rates) == 0:
		f.Answer, f.Text = AnswerUnknown, "No finished run shows it."
	case len(verdicts[analyze.VerdictRegression]) > 0:
		f.Answer = AnswerNo
		f.Text = fmt.Sprintf("No: it is %s, but significantly more frequent on %s than one release earlier: a regression, not a flake.",
			intermittentWord(intermittent, always), strings.Join(verdicts[analyze.VerdictRegression], ", "))
	case len(verdicts[analyze.VerdictPersistent]) > 0:
		f.Answer = AnswerNo
		f.Text = "No: on " + strings.Join(verdicts[analyze.VerdictPersistent], ", ") + " nearly every run shows it: persistent, not intermittent."
	case len(risen) > 0:
		f.Answer = AnswerNo
		f.Text = "No: it rose significantly in the last days on " + strings.Join(risen, ", ") + "."
	case len(verdicts[analyze.VerdictNew]) > 0:
		f.Answer = AnswerUnknown
		f.Text = "Too early to say: it is new on " + strings.Join(verdicts[analyze.VerdictNew], ", ") + " and not yet significant; watch the next runs."
	case len(verdicts[analyze.VerdictFlake]) > 0:
		f.Answer = AnswerYes
		f.Text = "Yes, as far as these runs tell: it is intermittent, and not significantly more frequent than one release earlier (" +
			flakePs(edges) + "). That is no proof that every earlier release was as affected."
	case len(verdicts[analyze.VerdictImproved]) > 0:
		f.Answer = AnswerYes
		f.Text = "Yes: it is intermittent, and less frequent than one release earlier on " +
			strings.Join(verdicts[analyze.VerdictImproved], ", ") + ", so updating does not increase exposure."
	default:
		f.Answer, f.Text = AnswerUnknown, "Not enough runs to say."
	}
	return f
}

func intermittentWord(intermittent, always bool) string {
	switch {
	case intermittent && always:
		return "intermittent on some edges and constant on others"
	case always:
		return "in nearly every run"
	}
	return "intermittent"
}

// summary is the assessment in a sentence: every edge where it is a
// regression or shows in most (more than half) of the counted runs, the
// highest rate first, each with its numbers and its verdict; then, when
// none of those is a regression, what the comparisons conclude.
func summary(a Assessment, edges []db.SymptomVerdict, minRuns int, bounded bool) string {
	named := mostShown(edges)
	var clauses []string
	regressed := false
	for _, v := range named {
		clauses = append(clauses, edgeClause(v, minRuns, bounded))
		regressed = regressed || v.Verdict == analyze.VerdictRegression
	}
	conclusion := verdictSummary(a, edges)
	switch {
	case len(clauses) == 0:
		return conclusion
	case regressed:
		return upperFirst(strings.Join(clauses, "; ")) + "."
	}
	return upperFirst(strings.Join(clauses, "; ")) + ". " + conclusion
}

// mostShown are the edges where it is a regression or that show it in
// more than half of their counted sample runs, the highest rate first (the
// most runs first among equals).
func mostShown(edges []db.SymptomVerdict) []db.SymptomVerdict {
	var out []db.SymptomVerdict
	for _, v := range edges {
		if v.Verdict == analyze.VerdictRegression || v.SampleRuns > 0 && 2*v.SampleHits > v.SampleRuns {
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, func(a, b db.SymptomVerdict) int {
		return cmp.Or(-analyze.CompareNaNLast(a.SampleRate, b.SampleRate), -cmp.Compare(a.SampleRuns, b.SampleRuns), cmp.Compare(a.Key, b.Key))
	})
	return out
}

// edgeClause is one edge of the summary with its numbers and verdict: "a
// regression on E: 43% of runs (6/14, 95% CI 21-67%) against 0% (0/14, 95%
// CI 0-22%) on B, p = 0.008".
func edgeClause(v db.SymptomVerdict, minRuns int, bounded bool) string {
	if v.Verdict == analyze.VerdictRegression {
		return fmt.Sprintf("a regression on %s: %s of runs (%d/%d, %s) against %s (%d/%d, %s) on %s, %s",
			v.Key, Percent(v.SampleRate), v.SampleHits, v.SampleRuns, Interval(v.SampleHits, v.SampleRuns),
			Percent(v.BasisRate), v.BasisHits, v.BasisRuns, Interval(v.BasisHits, v.BasisRuns), v.BasisLabel, PPhrase(v.P))
	}
	s := fmt.Sprintf("most runs of %s show it: %s (%d/%d, %s)", v.Key, Percent(v.SampleRate), v.SampleHits, v.SampleRuns,
		Interval(v.SampleHits, v.SampleRuns))
	basis := fmt.Sprintf("%s on %s (%d/%d, %s)", Percent(v.BasisRate), v.BasisLabel, v.BasisHits, v.BasisRuns, PPhrase(v.P))
	switch v.Verdict {
	case analyze.VerdictNew:
		return s + fmt.Sprintf(", absent on %s (0/%d), not yet significant (%s): new, watch it", v.BasisLabel, v.BasisRuns, PPhrase(v.P))
	case analyze.VerdictPersistent:
		return s + ", not significantly more than " + basis + ": persistent"
	case analyze.VerdictFlake:
		return s + ", not significantly more than " + basis
	case analyze.VerdictImproved:
		return s + ", but less than " + basis + ": improved"
	}
	if m := basisMissing(v, bounded); m != "" {
		return s + ", with no basis to compare with: " + m
	}
	if v.SampleRuns < minRuns {
		return s + fmt.Sprintf(", too few runs for a verdict (%d needed)", minRuns)
	}
	return s + fmt.Sprintf(", too few runs on %s for a verdict (%d of the %d needed)", v.BasisLabel, v.BasisRuns, minRuns)
}

// upperFirst is s with its first letter in upper case, to start a sentence.
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// verdictSummary is what the edges' comparisons conclude, in one sentence:
// the first regression, else the first new edge, else persistent, flake or
// improved, else why there is no conclusion.
func verdictSummary(a Assessment, edges []db.SymptomVerdict) string {
	first := func(verdict string) (db.SymptomVerdict, int) {
		n, at := 0, -1
		for i, v := range edges {
			if v.Verdict == verdict {
				if at < 0 {
					at = i
				}
				n++
			}
		}
		if at < 0 {
			return db.SymptomVerdict{}, 0
		}
		return edges[at], n
	}
	more := func(n int) string {
		if n > 1 {
			return fmt.Sprintf(" (and %d more edges)", n-1)
		}
		return ""
	}
	if v, n := first(analyze.VerdictRegression); n > 0 {
		return fmt.Sprintf("A regression on %s%s: %s of runs (%d/%d, %s) against %s (%d/%d, %s) on %s, %s.",
			v.Key, more(n), Percent(v.SampleRate), v.SampleHits, v.SampleRuns, Interval(v.SampleHits, v.SampleRuns),
			Percent(v.BasisRate), v.BasisHits, v.BasisRuns, Interval(v.BasisHits, v.BasisRuns), v.BasisLabel, PPhrase(v.P))
	}
	if v, n := first(analyze.VerdictNew); n > 0 {
		return fmt.Sprintf("New on %s%s: %s of runs (%d/%d), absent on %s (0/%d), not yet significant (%s): watch it.",
			v.Key, more(n), Percent(v.SampleRate), v.SampleHits, v.SampleRuns, v.BasisLabel, v.BasisRuns, PPhrase(v.P))
	}
	if _, n := first(analyze.VerdictPersistent); n > 0 {
		return "Persistent: nearly every run shows it, as one release earlier; not a regression."
	}
	if _, n := first(analyze.VerdictFlake); n > 0 {
		return "A flake: intermittent, and not significantly more frequent than one release earlier (" + flakePs(edges) + "); not a regression."
	}
	if v, n := first(analyze.VerdictImproved); n > 0 {
		return fmt.Sprintf("Improved on %s%s: %s of runs (%d/%d) against %s (%d/%d) on %s, %s; not a regression.",
			v.Key, more(n), Percent(v.SampleRate), v.SampleHits, v.SampleRuns, Percent(v.BasisRate), v.BasisHits, v.BasisRuns, v.BasisLabel, PPhrase(v.P))
	}
	if a.Impact.RunsWith == 0 {
		return "No finished run shows it."
	}
	return "Not enough runs to say whether it is a regression."
}

// flakePs are the p-values of the edges where it is a flake: "p = 0.68 on
// 4.13->4.14 minor".
func flakePs(edges []db.SymptomVerdict) string {
	var ps []string
	for _, v := range edges {
		if v.Verdict == analyze.VerdictFlake {
			ps = append(ps, PPhrase(v.P)+" on "+v.Key)
		}
	}
	return strings.Join(ps, ", ")
}
