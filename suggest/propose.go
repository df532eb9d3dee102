package suggest

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/stats"
)

// JUnitFiles is the glob a rule on failure messages reads: every JUnit
// file of a run, at any depth of its artifacts.
const JUnitFiles = "artifacts/**/junit*.xml"

// RunRef names a run.
type RunRef struct {
	Job     string `json:"job"`
	BuildID int64  `json:"build_id,string"` // a string, as Prow writes it: 19 digits do not survive a float64 reader (jq 1.6, JavaScript)
}

// Counts are how many runs show a proposal, of how many.
type Counts struct {
	Failed      int `json:"failed_runs"`       // failed runs that show it
	FailedTotal int `json:"failed_total"`      // failed runs
	Passed      int `json:"passed_runs"`       // passed runs that show it
	PassedTotal int `json:"passed_total"`      // passed runs
	Unexplained int `json:"unexplained_runs"`  // failed runs it shows in that no rule explains
	UnexplTotal int `json:"unexplained_total"` // failed runs no rule explains
	// P is the one-sided Fisher exact p-value of its rate in failed runs
	// being higher than in passed runs.
	P float64 `json:"p_value"`
}

// FailedRate is the fraction of failed runs that show it.
func (c Counts) FailedRate() float64 { return rate(c.Failed, c.FailedTotal) }

// PassedRate is the fraction of passed runs that show it.
func (c Counts) PassedRate() float64 { return rate(c.Passed, c.PassedTotal) }

func rate(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// EdgeCounts are the counts of one upgrade edge's runs.
type EdgeCounts struct {
	Edge string `json:"edge"`
	Counts
	// Concentrated: its rate in this edge's failed runs is significantly
	// higher than in the other edges' failed runs, a regression candidate.
	Concentrated bool `json:"concentrated"`
	// PConcentrated is the p-value of that comparison.
	PConcentrated float64 `json:"p_concentrated"`
}

// Proposal is a proposed symptom: a rule and what it covers.
type Proposal struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Kind  Kind   `json:"kind"`
	// Rule is the rules-file text of the symptom.
	Rule string `json:"rule"`
	// Pattern is the rule's regular expression: of lines (a message or a
	// log line), or of a test's name for a test that failed without one.
	Pattern string   `json:"pattern"`
	Files   []string `json:"files"`
	// Template is the leading normalised text; Examples are raw ones.
	Template string   `json:"template"`
	Examples []string `json:"examples"`
	Counts
	// Edges are the counts per upgrade edge, the most over-represented
	// first; Edge is that one, when it matters.
	Edges []EdgeCounts `json:"edges"`
	Edge  string       `json:"edge,omitempty"`
	// Concentrated says where it is concentrated, when it is: the jobs
	// whose failed runs show it significantly more often than the other
	// jobs' (what ranks it first), with those runs.
	Concentrated *Concentration `json:"concentrated,omitempty"`
	// Generic: it comes with nearly every failure of its jobs on several
	// edges, so it says that a run failed, not why (a step's wrapper
	// message). Generic proposals are ranked last.
	Generic bool     `json:"generic"`
	Runs    []RunRef `json:"runs"`
	rule    classify.Rule
	score   float64
	rank    rank
	shown   string // the common line, as the title shows it
	family  bool   // mostly gaps between a few words (family): never proposed
	// note, when set, says where the texts came from (FromLines), in
	// place of the counts a proposal from runs has.
	note string
}

// Concentration is the jobs a proposal is concentrated in: of their
// failed runs where it is unexplained, how many show it (In of InOf),
// against the other jobs' (Out of OutOf).
type Concentration struct {
	Jobs   []string `json:"jobs"`
	In     int      `json:"runs_in"`
	InOf   int      `json:"runs_in_of"`
	Out    int      `json:"runs_out"`
	OutOf  int      `json:"runs_out_of"`
	Effect float64  `json:"effect"`
	PValue float64  `json:"p_value"`
}

// Rules returns the proposal as a classify rule.
func (p Proposal) Rules() classify.Rule { return p.rule }

// Result is what Propose found.
type Result struct {
	// Wildcards counts the proposals left out because their pattern is
	// mostly "anything" (.*) between a few words: families of tests or
	// messages (^\[sig-.*\].*should support), not findings.
	Wildcards int
	Proposals []Proposal
	Stats     Stats
	Clusters  int // clusters of templates
	// Candidates: clusters that explain enough unexplained failed runs and
	// are significantly over-represented in failed runs.
	Candidates int
	// Totals of the runs given.
	Counts Counts
	// Unusable counts the proposals left out because their rule would not
	// load (a text whose bytes no rule may hold); they never stop Propose.
	Unusable int
}

// genericShare is the share of its jobs' failed runs from which a cluster
// found on several edges is generic.
const genericShare = 0.9

// Propose clusters the templates gathered and returns at most top
// proposals, the strongest first (top <= 0: all). The same texts, in any
// order within a run, give the same proposals.
func (c *Collector) Propose(top int) (Result, error) {
	res := Result{Stats: c.Stats()}
	tot := c.totals()
	res.Counts = tot
	tps := make([]*template, 0, len(c.templates))
	for _, tp := range c.templates {
		slices.Sort(tp.runs)
		tp.runs = slices.Compact(tp.runs)
		tps = append(tps, tp)
	}
	var clusters []*cluster
	found, vocab := clustered(tps)
	c.vocab = vocab
	for _, cl := range found {
		clusters = append(clusters, splitModes(cl, c.opts.MinRuns, func(r uint32) string { return c.runs[r].Job })...)
	}
	res.Clusters = len(clusters)
	for i, cl := range clusters {
		for _, m := range cl.members {
			m.cluster = int32(i + 1)
		}
	}

	type cand struct {
		c     *cluster
		cnt   Counts
		score float64
		rank  rank
		gen   bool
		name  bool
		lead  string
		runs  []uint32
	}
	var cands []cand
	// The runs of the clusters of failure messages, by the tests that
	// failed with them.
	var msgRuns [][]uint32
	byTest := make(map[string][]int)
	for _, cl := range clusters {
		runs := unionRuns(cl.members)
		lead := cl.members[0]
		if lead.kind == KindJUnit && !lead.byName && len(runs) >= c.opts.MinRuns {
			for _, m := range cl.members {
				if l := byTest[m.test]; len(l) == 0 || l[len(l)-1] != len(msgRuns) {
					byTest[m.test] = append(l, len(msgRuns))
				}
			}
			msgRuns = append(msgRuns, runs)
		}
		// Not a proposal whether the rules name its messages or not (an
		// open failure counts every failed run, a closed one only those
		// no symptom explains): not worth asking them.
		closed := c.count(hits{runs: runs}, tot)
		open := c.count(hits{runs: runs, open: runs}, tot)
		if open.Unexplained < c.opts.MinRuns || min(closed.P, open.P) >= c.opts.Alpha {
			continue
		}
		h := c.hitsWith(cl.members, runs)
		cnt := c.count(h, tot)
		if cnt.Unexplained < c.opts.MinRuns || cnt.P >= c.opts.Alpha {
			continue
		}
		score, _ := c.edgeScore(h, cnt)
		rk := c.rankOf(h, cnt, score)
		if rk.concentrated && namesItsJob(lead.text, h.runs, func(r uint32) string { return c.runs[r].Job }) {
			rk = spread(cnt, score) // as build will find it: see there
		}
		cands = append(cands, cand{cl, cnt, score, rk, c.generic(h.runs), lead.byName, lead.text, h.runs})
	}
	// A test's name is a finding of its own only where its messages are
	// too different to be one: when one cluster of its messages is in
	// every run the name is, the message says the same and why.
	// Nor is it when its messages say two things or more, each in enough
	// runs (an alert that fired, another one): those are the findings,
	// one proposal each, and "the test failed" would hide which.
	cands = slices.DeleteFunc(cands, func(cd cand) bool {
		if !cd.name {
			return false
		}
		for _, m := range cd.c.members {
			if len(byTest[m.test]) >= 2 {
				return true
			}
			for _, i := range byTest[m.test] {
				if subset(cd.runs, msgRuns[i]) {
					return true
				}
			}
		}
		return false
	})
	res.Candidates = len(cands)
	slices.SortFunc(cands, func(a, b cand) int {
		return cmp.Or(boolCmp(a.gen, b.gen), a.rank.compare(b.rank),
			-cmp.Compare(a.cnt.Unexplained, b.cnt.Unexplained), -cmp.Compare(a.cnt.Failed, b.cnt.Failed),
			boolCmp(a.name, b.name), strings.Compare(a.lead, b.lead))
	})

	ids := make(map[string]bool)
	patterns := make(map[string]bool)
	runSets := make(map[uint64]bool)
	// A rule finds what its cluster's texts do and more: it may turn out
	// generic, and rank lower than its cluster did. Proposals are built
	// until top of them are not generic, then ranked as built.
	specific := 0
	for _, cd := range cands {
		if top > 0 && specific >= top {
			break
		}
		p, ok := c.build(cd.c, tps, tot)
		// One proposal per text: the same line found in a JUnit message
		// and in a log is proposed once, from the first ranked.
		// One proposal per set of runs, too: a test's name and its
		// message found in the same runs are one finding, and the
		// message, which says why, ranks first.
		// The text is the rule's pattern, made of the whole line: never
		// its title, cut at maxTitle, which two findings can share.
		if !ok || patterns[p.Pattern] || runSets[runsKey(p.Runs)] {
			continue
		}
		if p.Unexplained < c.opts.MinRuns || p.P >= c.opts.Alpha {
			continue // the rule, as it matches, explains too little
		}
		if p.family {
			res.Wildcards++
			continue
		}
		patterns[p.Pattern] = true
		runSets[runsKey(p.Runs)] = true
		for ids[p.ID] {
			p.ID += "-x"
		}
		ids[p.ID] = true
		p.rule.ID = p.ID
		p.Rule = ruleText(p)
		if _, err := classify.ParseRules("suggest", []byte("symptoms:\n"+p.Rule)); err != nil {
			res.Unusable++ // a bucket's bytes that no rules file may hold
			continue
		}
		res.Proposals = append(res.Proposals, p)
		if !p.Generic {
			specific++
		}
	}
	slices.SortStableFunc(res.Proposals, func(a, b Proposal) int {
		return cmp.Or(boolCmp(a.Generic, b.Generic), a.rank.compare(b.rank),
			-cmp.Compare(a.Unexplained, b.Unexplained), -cmp.Compare(a.Failed, b.Failed),
			boolCmp(a.rule.Match[0].JUnit != nil, b.rule.Match[0].JUnit != nil))
	})
	if top > 0 && len(res.Proposals) > top {
		res.Proposals = res.Proposals[:top]
	}
	return res, nil
}

// subset reports whether the sorted runs a are all in the sorted runs b.
func subset(a, b []uint32) bool {
	if len(a) > len(b) {
		return false
	}
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) || b[j] != x {
			return false
		}
	}
	return true
}

// runsKey is a hash of a list of runs.
func runsKey(runs []RunRef) uint64 {
	h := fnv.New64a()
	for _, r := range runs {
		fmt.Fprintf(h, "%s/%d\n", r.Job, r.BuildID)
	}
	return h.Sum64()
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// totals counts the runs given.
func (c *Collector) totals() Counts {
	var t Counts
	for _, r := range c.runs {
		switch {
		case !r.Failed:
			t.PassedTotal++
		case r.Explained:
			t.FailedTotal++
		default:
			t.FailedTotal++
			t.UnexplTotal++
		}
	}
	return t
}

// hits are the runs that show some templates: all of them, and those of
// the open templates (failed tests' messages no active rule matches),
// whose failure is unexplained in a run a symptom explains too.
type hits struct {
	runs []uint32 // sorted
	open []uint32 // sorted, a subset of runs
}

// hitsOf is the runs of templates.
func (c *Collector) hitsOf(tps []*template) hits {
	return c.hitsWith(tps, unionRuns(tps))
}

// hitsWith is the runs of templates, given all of them.
func (c *Collector) hitsWith(tps []*template, runs []uint32) hits {
	h := hits{runs: runs}
	var open []*template
	for _, tp := range tps {
		if c.open(tp) {
			open = append(open, tp)
		}
	}
	if len(open) == len(tps) {
		h.open = h.runs
	} else if len(open) > 0 {
		h.open = unionRuns(open)
	}
	return h
}

// unionRuns is the sorted runs of templates.
func unionRuns(tps []*template) []uint32 {
	if len(tps) == 1 {
		return tps[0].runs
	}
	var all []uint32
	for _, tp := range tps {
		all = append(all, tp.runs...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// tally counts runs into counts: passed, failed, and unexplained failed
// runs, those no symptom explains and, when open, every failed run (the
// failure is one no rule names, whatever else the run shows).
type tally struct{ f, p, u, ft, pt, ut, et int }

func (a *tally) total(r *Run) {
	switch {
	case !r.Failed:
		a.pt++
	case r.Explained:
		a.ft++
		a.et++
	default:
		a.ft++
		a.ut++
	}
}

func (a *tally) hit(r *Run, open bool) {
	switch {
	case !r.Failed:
		a.p++
	case r.Explained:
		a.f++
		if open {
			a.u++
		}
	default:
		a.f++
		a.u++
	}
}

// counts are a tally's counts. The failures no rule explains are the
// subject: its rate in the failed runs where it is unexplained (every
// failed run, for an open failure) is tested against its rate in passed
// runs, with the one-sided Fisher exact test of the analysis.
func (a *tally) counts(open bool) Counts {
	cnt := Counts{Failed: a.f, FailedTotal: a.ft, Passed: a.p, PassedTotal: a.pt, Unexplained: a.u, UnexplTotal: a.ut}
	if open {
		cnt.UnexplTotal += a.et
	}
	cnt.P = pGreater(cnt.Unexplained, cnt.UnexplTotal, cnt.Passed, cnt.PassedTotal)
	return cnt
}

// count counts the runs of h, and its p-value.
func (c *Collector) count(h hits, tot Counts) Counts {
	a := tally{ft: tot.FailedTotal, pt: tot.PassedTotal, ut: tot.UnexplTotal, et: tot.FailedTotal - tot.UnexplTotal}
	c.eachHit(h, func(r *Run, open bool) { a.hit(r, open) })
	return a.counts(len(h.open) > 0)
}

// eachHit calls f for each run of h, with whether it is a run of h.open.
func (c *Collector) eachHit(h hits, f func(r *Run, open bool)) {
	j := 0
	for _, ri := range h.runs {
		for j < len(h.open) && h.open[j] < ri {
			j++
		}
		f(&c.runs[ri], j < len(h.open) && h.open[j] == ri)
	}
}

// pGreater is the p-value of a rate in failed runs above the one in passed
// runs; a table without evidence is 1.
func pGreater(f, ft, p, pt int) float64 {
	g, _ := stats.FisherOneSided(f, ft, p, pt)
	if math.IsNaN(g) {
		return 1
	}
	return g
}

// edgeTotals counts the runs of each edge, once.
func (c *Collector) edgeTotals() map[string]*tally {
	if c.edges == nil {
		c.edges = c.totalsBy(func(r *Run) string { return r.Edge })
	}
	return c.edges
}

// totalsBy counts the runs by key (a run whose key is empty is left out).
func (c *Collector) totalsBy(key func(*Run) string) map[string]*tally {
	out := make(map[string]*tally)
	for i := range c.runs {
		r := &c.runs[i]
		k := key(r)
		if k == "" {
			continue
		}
		a := out[k]
		if a == nil {
			a = &tally{}
			out[k] = a
		}
		a.total(r)
	}
	return out
}

// edgeCounts are the counts per edge of h, the most over-represented
// first.
func (c *Collector) edgeCounts(h hits, all Counts) []EdgeCounts {
	by := make(map[string]*tally)
	c.eachHit(h, func(r *Run, open bool) {
		if r.Edge == "" {
			return
		}
		a := by[r.Edge]
		if a == nil {
			t := *c.edgeTotals()[r.Edge]
			a = &tally{ft: t.ft, pt: t.pt, ut: t.ut, et: t.et}
			by[r.Edge] = a
		}
		a.hit(r, open)
	})
	open := len(h.open) > 0
	var out []EdgeCounts
	for e, a := range by {
		ec := EdgeCounts{Edge: e, Counts: a.counts(open)}
		// Concentrated: more frequent where it is unexplained on this
		// edge than on the others.
		ec.PConcentrated = pGreater(ec.Unexplained, ec.UnexplTotal, all.Unexplained-ec.Unexplained, all.UnexplTotal-ec.UnexplTotal)
		out = append(out, ec)
	}
	slices.SortFunc(out, func(a, b EdgeCounts) int {
		return cmp.Or(cmp.Compare(a.P, b.P), -cmp.Compare(a.Unexplained, b.Unexplained), -cmp.Compare(a.Failed, b.Failed), strings.Compare(a.Edge, b.Edge))
	})
	return out
}

// rank orders proposals as a release engineer reads them: a failure
// concentrated in some jobs or edges and absent from the rest first, by
// its effect (the share of the scope's failed runs it explains, less its
// share elsewhere), then one spread over everything; p-values, which
// underflow for large clusters, only break ties.
type rank struct {
	concentrated bool
	effect       float64
	score        float64
	where        *Concentration // when concentrated
}

func (a rank) compare(b rank) int {
	return cmp.Or(boolCmp(!a.concentrated, !b.concentrated), -cmp.Compare(a.effect, b.effect), cmp.Compare(a.score, b.score))
}

// jobTotals counts the runs of each job, once.
func (c *Collector) jobTotals() map[string]*tally {
	if c.jobs == nil {
		c.jobs = c.totalsBy(func(r *Run) string { return r.Job })
	}
	return c.jobs
}

// rankOf is h's rank: concentrated when the failed runs of some of the
// jobs it is in show it significantly more often than the other jobs'
// failed runs (one-sided Fisher exact test, Bonferroni over the jobs), its
// effect that of the jobs that show it most.
func (c *Collector) rankOf(h hits, cnt Counts, score float64) rank {
	// Counted where it is unexplained: in the failed runs no symptom
	// explains, or in every failed run for a failure no rule names
	// (open, as Counts counts it).
	open := cnt.UnexplTotal == cnt.FailedTotal
	by := make(map[string]int)
	c.eachHit(h, func(r *Run, o bool) {
		if r.Failed && (!r.Explained || o) {
			by[r.Job]++
		}
	})
	totals := c.jobTotals()
	denom := func(t *tally) int {
		if open {
			return t.ft
		}
		return t.ut
	}
	type js struct {
		job      string
		hits, of int
		rate     float64
	}
	var jobs []js
	for job, n := range by {
		of := denom(totals[job])
		jobs = append(jobs, js{job, n, of, rate(n, of)})
	}
	slices.SortFunc(jobs, func(a, b js) int {
		return cmp.Or(-cmp.Compare(a.rate, b.rate), -cmp.Compare(a.hits, b.hits), strings.Compare(a.job, b.job))
	})
	best := rank{score: score}
	// The jobs where it is most frequent, one more at a time: the scope
	// whose excess over the rest is largest.
	inHits, inOf := 0, 0
	for k, j := range jobs {
		inHits += j.hits
		inOf += j.of
		outHits, outOf := cnt.Unexplained-inHits, cnt.UnexplTotal-inOf
		if outOf <= 0 {
			break
		}
		effect := rate(inHits, inOf) - rate(outHits, outOf)
		if effect <= best.effect {
			continue
		}
		if p := pGreater(inHits, inOf, outHits, outOf) * float64(len(totals)); p < c.opts.Alpha {
			best.concentrated, best.effect = true, effect
			where := &Concentration{In: inHits, InOf: inOf, Out: outHits, OutOf: outOf, Effect: effect, PValue: min(p, 1)}
			for _, j := range jobs[:k+1] {
				where.Jobs = append(where.Jobs, j.job)
			}
			best.where = where
		}
	}
	if !best.concentrated {
		return spread(cnt, score)
	}
	return best
}

// spread is the rank of a failure concentrated nowhere: its effect the
// share of the unexplained failed runs it is in, less its share of the
// passed runs.
func spread(cnt Counts, score float64) rank {
	return rank{score: score, effect: rate(cnt.Unexplained, cnt.UnexplTotal) - rate(cnt.Passed, cnt.PassedTotal)}
}

// edgeScore is the ranking score of h: the smaller of the overall p-value
// and the best edge's, the latter multiplied by the number of edges it was
// chosen from (Bonferroni: every edge of the runs), so that a failure
// concentrated on one edge ranks high without every edge being a chance to
// look lucky.
func (c *Collector) edgeScore(h hits, cnt Counts) (float64, []EdgeCounts) {
	edges := c.edgeCounts(h, cnt)
	score := cnt.P
	if n := len(c.edgeTotals()); n > 1 && len(edges) > 0 {
		score = min(score, edges[0].P*float64(n))
	}
	return score, edges
}

// generic reports whether runs are nearly every failed run of each of
// their jobs, on more than one edge: a message that comes with any
// failure (a step's "test phase failed"). A failure that a bug causes
// spares some failed runs of some job, those that failed of something else.
func (c *Collector) generic(runs []uint32) bool {
	type share struct{ hits, failed int }
	jobs := make(map[string]*share)
	edges := make(map[string]bool)
	totals := c.jobTotals()
	failed := 0
	for _, ri := range runs {
		r := &c.runs[ri]
		s := jobs[r.Job]
		if s == nil {
			s = &share{failed: totals[r.Job].ft}
			jobs[r.Job] = s
			failed += s.failed
		}
		edges[r.Edge] = true
		if r.Failed {
			s.hits++
		}
	}
	if len(jobs) < 2 && len(edges) < 2 {
		return false
	}
	if failed < 10 {
		return false
	}
	for _, s := range jobs {
		if float64(s.hits) < genericShare*float64(s.failed) {
			return false
		}
	}
	return true
}

// build makes a cluster's rule and counts the runs the rule finds among
// all the templates gathered.
func (c *Collector) build(cl *cluster, all []*template, tot Counts) (Proposal, bool) {
	lead := cl.members[0]
	files := []string{JUnitFiles}
	if lead.kind == KindLog {
		files = nil
		for _, m := range cl.members {
			for _, f := range m.files {
				if !slices.Contains(files, f) {
					files = append(files, f)
				}
			}
		}
		slices.Sort(files)
		if len(files) == 0 {
			return Proposal{}, false
		}
	}
	// The line the rule is made of: of the lines the members share, the
	// one whose rule finds the fewest runs beyond the cluster's (its
	// precision on them), the most shared first among equals; a message
	// says what failed first and its details after, and a generic first
	// line ("Unexpected error:") would find every run that failed so.
	var line commonLine
	var pattern string
	var found []*template
	bestPrec := -1.0
	own := unionRuns(cl.members)
	for i, toks := range ruleLines(cl, c.vocab) {
		if i == maxRuleLines {
			break
		}
		pat, f, ok := c.ruleOf(lead, toks, files, all)
		if !ok || len(f) == 0 {
			continue
		}
		runs := unionRuns(f)
		prec := float64(intersectCount(own, runs)) / float64(len(runs))
		if prec > bestPrec+1e-9 {
			bestPrec, line, pattern, found = prec, commonLine{toks: toks}, pat, f
		}
		if prec >= 0.999 {
			break
		}
	}
	if bestPrec < 0 {
		return Proposal{}, false
	}
	if len(found) == 0 {
		return Proposal{}, false
	}
	h := c.hitsOf(found)
	runs := h.runs
	cnt := c.count(h, tot)
	score, edges := c.edgeScore(h, cnt)
	p := Proposal{
		Kind: lead.kind, Pattern: pattern, Files: files, Template: lead.text,
		Counts: cnt, Edges: edges, Generic: c.generic(runs), score: score, rank: c.rankOf(h, cnt, score),
	}
	if p.rank.concentrated && !p.Generic && !c.namesTheJobs(line.toks, runs) {
		p.Concentrated = p.rank.where
	}
	if p.rank.concentrated && c.namesTheJobs(line.toks, runs) {
		// Concentrated only because it names its runs' own job or
		// step (ci-operator's "\"e2e-aws-ovn-upgrade\" test steps
		// failed"): as spread as the failures it stands for.
		p.rank = spread(cnt, score)
	}
	for _, ex := range lead.example {
		p.Examples = append(p.Examples, capText(ex, 1024))
	}
	if len(c.edgeTotals()) > 1 && len(edges) > 0 && edges[0].PConcentrated < c.opts.Alpha {
		edges[0].Concentrated = true
		p.Edge = edges[0].Edge
	}
	for _, ri := range runs {
		r := &c.runs[ri]
		p.Runs = append(p.Runs, RunRef{Job: r.Job, BuildID: r.BuildID})
	}
	slices.SortFunc(p.Runs, func(a, b RunRef) int { return cmp.Or(strings.Compare(a.Job, b.Job), cmp.Compare(a.BuildID, b.BuildID)) })
	p.family = family(line.toks)
	shown := display(line.toks)
	p.shown = shown
	hash := fnv.New32a()
	hash.Write([]byte(pattern))
	s := slug(line.toks)
	if s == "" {
		s = "failure"
	}
	p.ID = fmt.Sprintf("suggested-%s-%04x", s, hash.Sum32()&0xffff)
	switch {
	case lead.byName:
		p.Title = "test fails: " + shown
	case lead.kind == KindLog:
		p.Title = "log line: " + shown
	default:
		p.Title = shown
	}
	p.rule = classify.Rule{ID: p.ID, Title: p.Title, Files: files}
	if lead.byName {
		p.rule.Match = []classify.Matcher{{JUnit: &classify.JUnitMatcher{Name: pattern}}}
	} else {
		p.rule.Match = []classify.Matcher{{Lines: &classify.LinesMatcher{Any: []string{pattern}}}}
	}
	return p, true
}

// familyWords is how many literal words a pattern with a gap (.*) needs
// in a row somewhere to be a finding rather than a family.
const familyWords = 3

// family says whether a line's tokens are mostly gaps: it has one at
// least, and no run of familyWords literal words between them.
func family(toks []ctok) bool {
	gaps, run, best := 0, 0, 0
	for i, t := range toks {
		if i > 0 && t.gap {
			gaps++
			run = 0
		}
		if !isPlaceholder(t.text) && isAlnum(t.text[0]) && len(t.text) > 1 {
			run++
			best = max(best, run)
		}
	}
	return gaps > 0 && best < familyWords
}

// namesTheJobs says whether the literal words of a line name the job of
// each of runs (namesItsJob).
func (c *Collector) namesTheJobs(toks []ctok, runs []uint32) bool {
	var b strings.Builder
	for i, t := range toks {
		if i > 0 && (t.space || t.gap) {
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
	}
	return namesItsJob(b.String(), runs, func(r uint32) string { return c.runs[r].Job })
}

// maxRuleLines is how many of a cluster's common lines build tries.
const maxRuleLines = 4

// ruleLines are the common lines of a cluster a rule can be made of (with
// enough literal text), the most shared first and, among those, the one
// whose rarest word the fewest templates hold (vocab): the line that tells
// the cluster from the rest ("alertname": "KubeAPIErrorBudgetBurn") before
// the lines every failure of its kind has (promQL query returned
// unexpected results); in their order within among equals.
func ruleLines(cl *cluster, vocab vocabulary) [][]ctok {
	lines := commonLines(cl)
	type line struct {
		commonLine
		rarest int32
	}
	var ok []line
	for _, l := range lines {
		if l.literal >= minLiteral && words(l.toks) >= minWords {
			r := int32(math.MaxInt32)
			for _, t := range l.toks {
				if n, found := vocab[t.text]; found {
					r = min(r, n)
				}
			}
			ok = append(ok, line{l, r})
		}
	}
	slices.SortStableFunc(ok, func(a, b line) int {
		return cmp.Or(-cmp.Compare(len(a.members), len(b.members)), cmp.Compare(a.rarest, b.rarest))
	})
	out := make([][]ctok, len(ok))
	for i, l := range ok {
		out[i] = l.toks
	}
	return out
}

// ruleOf is the pattern of a rule made of the line toks for lead's kind,
// and the templates of all it finds: every template of the same kind with
// an example it matches (in a file it reads, for a log line). The longest
// word of the line must be in the example first, which most fail.
func (c *Collector) ruleOf(lead *template, toks []ctok, files []string, all []*template) (string, []*template, bool) {
	xml := lead.kind == KindJUnit && !lead.byName
	var pattern string
	var re *regexp.Regexp
	for _, wide := range []bool{false, true} {
		pattern = expression(toks, xml, wide)
		if lead.byName {
			// A name's end is left open: the test's variants
			// ("... for new connections", a suite's suffix) are one.
			pattern = "^" + pattern
		}
		var err error
		if re, err = regexp.Compile(pattern); err != nil {
			return "", nil, false
		}
		if matchesLine(re, lead.example[0]) {
			break
		}
	}
	must := ""
	for _, t := range toks {
		if isAlnum(t.text[0]) && !isPlaceholder(t.text) && len(t.text) > len(must) {
			must = t.text
		}
	}
	var found []*template
	for _, tp := range all {
		if tp.kind != lead.kind || tp.byName != lead.byName {
			continue
		}
		if lead.kind == KindLog && !overlaps(tp.files, files) {
			continue
		}
		for _, ex := range tp.example {
			if strings.Contains(ex, must) && matchesLine(re, ex) {
				found = append(found, tp)
				break
			}
		}
	}
	return pattern, found, true
}

// intersectCount counts the runs the sorted a and b share.
func intersectCount(a, b []uint32) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			n++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return n
}

// matchesLine reports whether re matches a line of text.
func matchesLine(re *regexp.Regexp, text string) bool {
	for line := range strings.SplitSeq(text, "\n") {
		if re.MatchString(line) {
			return true
		}
	}
	return false
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}
