package classify

import (
	"errors"
	"fmt"
	"net/netip"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openshift-eng/prowcrawl/prow"
)

// Engine matches a set of rules against runs. It is immutable once built
// and safe for concurrent use; each run is matched by a Scan of its own.
type Engine struct {
	rules    []Rule
	compiled []*compiledRule
	matchers []*compiledMatcher // every matcher of every rule, by id
	wants    []wantGlob         // any rule's files

	mu       sync.Mutex
	programs map[string]*program // by file kind and active rules
}

// maxPrograms bounds the cache of per-file programs; a set of rules active
// together that is not cached is compiled for its file and dropped.
const maxPrograms = 256

// NewEngine checks and compiles rules. Rule ids must be unique. Disabled
// rules are left out.
func NewEngine(rules []Rule) (*Engine, error) {
	e := &Engine{rules: make([]Rule, len(rules)), programs: make(map[string]*program)}
	copy(e.rules, rules)
	var errs []error
	seen := make(map[string]bool)
	var globs []string
	ndfa := 0
	e.rules = slices.DeleteFunc(e.rules, func(r Rule) bool { return r.Disabled })
	for i := range e.rules {
		r := &e.rules[i]
		name := r.ID
		if name == "" {
			name = fmt.Sprintf("#%d", i)
		}
		if seen[r.ID] {
			errs = append(errs, fmt.Errorf("rule %s: duplicate id", name))
		}
		seen[r.ID] = true
		cr, ferrs := compileRule(r)
		for _, fe := range ferrs {
			if fe.path == "" {
				errs = append(errs, fmt.Errorf("rule %s: %s", name, fe.msg))
			} else {
				errs = append(errs, fmt.Errorf("rule %s: %s: %s", name, fe.path, fe.msg))
			}
		}
		if len(ferrs) > 0 {
			continue
		}
		cr.index, cr.hash = len(e.compiled), r.Hash()
		for _, m := range cr.matchers {
			m.id, m.rule = len(e.matchers), cr.index
			m.probes = probesOf(m)
			ndfa = numberDFAs(m, ndfa)
			e.matchers = append(e.matchers, m)
		}
		e.compiled = append(e.compiled, cr)
		// Junit and upgrade matchers read the run's metadata, not its
		// files: a rule made only of those wants no download.
		reads := false
		for _, m := range cr.matchers {
			reads = reads || (m.kind != kindJUnit && m.kind != kindUpgrade)
		}
		for _, f := range r.Files {
			if !reads {
				break
			}
			if !slices.Contains(globs, f) {
				globs = append(globs, f)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for _, g := range globs {
		re, _ := globRegexp(g)
		e.wants = append(e.wants, wantGlob{suffix: literalSuffix(g), re: regexp.MustCompile(`^(?:` + re + `)$`)})
	}
	return e, nil
}

// Rules returns the engine's rules in order.
func (e *Engine) Rules() []Rule {
	out := make([]Rule, len(e.rules))
	copy(out, e.rules)
	return out
}

// Wants reports whether any rule reads the object at rel, a path relative to
// the run directory with forward slashes.
func (e *Engine) Wants(rel string) bool {
	for _, w := range e.wants {
		if strings.HasSuffix(rel, w.suffix) && w.re.MatchString(rel) {
			return true
		}
	}
	return false
}

// wantGlob is one files glob: a run has thousands of objects, and most of
// them are turned away by the literal their name must end with, before the
// expression is run.
type wantGlob struct {
	suffix string
	re     *regexp.Regexp
}

// literalSuffix is the literal end of a glob, after its last wildcard,
// class, brace, comma or escape: "artifacts/**/junit*.xml" -> ".xml". What
// follows an escape is literal too, so cutting there is safe.
func literalSuffix(glob string) string {
	return glob[strings.LastIndexAny(glob, "*?[]{},\\")+1:]
}

// RunInfo is what a Scan knows of a run besides its files.
type RunInfo struct {
	// Start is when the run started. Its year dates the year-less
	// timestamps of monitor and klog lines; a zero Start leaves their
	// evidence undated.
	Start time.Time
	// StartGuessed says that Start is not the run's own (no started.json:
	// a file's modification time): it dates year-less lines, but evidence
	// times are not bounded by it.
	StartGuessed bool
	// ClusterNetworks are the run's own pod networks (its
	// network.config.openshift.io clusterNetwork CIDRs, IPv4 and IPv6),
	// which a rule's `cidr: [cluster]` reads; empty when the run does not
	// say, which is DefaultClusterNetwork.
	ClusterNetworks []netip.Prefix
	// Tests are the run's merged JUnit results.
	Tests []prow.TestResult
	// UpgradeState is clusterversion's history[0].state, or empty.
	UpgradeState string
	// Topology is the run's cluster topology (prow.Variants.Topology), or
	// empty when unknown: a rule limited to some topologies matches only
	// runs of those.
	Topology string
}

// Match is a symptom found in a run, with its first evidence.
type Match struct {
	// Symptom is the rule's id.
	Symptom string
	// Hits counts the evidence of the entries of the rule's match list
	// that matched: lines, events, tests, disruption entries or sequence
	// pairs, over all files.
	Hits int
	// File is the path, relative to the run directory, of the first
	// evidence; empty for evidence that is no file's (junit, upgrade).
	File string
	// Line is the evidence's line number from 1 (the item number in an
	// events file); 0 when it has none.
	Line int
	// Excerpt is the evidence line without ANSI escapes, trimmed, at most
	// MaxExcerpt bytes of valid UTF-8.
	Excerpt string
	// At is the time of the evidence when known.
	At time.Time
	// LastAt is the time of the latest evidence counted in Hits (the end
	// of an interval for events), never before At; zero when At is. From
	// At to LastAt, the run showed the symptom.
	LastAt time.Time
}

// file kinds, by name.
type fileKind uint8

const (
	fileText fileKind = iota
	fileEvents
	fileDisruption
)

// kindOf tells how a file is read, from its base name.
func kindOf(rel string) fileKind {
	base := path.Base(rel)
	switch {
	case strings.HasPrefix(base, "backend-disruption") && strings.HasSuffix(base, ".json"):
		return fileDisruption
	case strings.HasSuffix(base, ".json") && (strings.HasPrefix(base, "e2e-events") ||
		strings.HasPrefix(base, "e2e-intervals") || strings.HasPrefix(base, "e2e-timelines") ||
		strings.HasPrefix(base, "AdditionalEvents")):
		return fileEvents
	}
	return fileText
}

// matcherKind is which field of a Matcher is set.
type matcherKind uint8

const (
	kindLines matcherKind = iota + 1
	kindEvents
	kindJUnit
	kindUpgrade
	kindDisruption
	kindSequence
)

// compiledRule is a checked rule with its globs and regexes compiled.
type compiledRule struct {
	rule     *Rule
	hash     string // rule.Hash()
	index    int
	files    *regexp.Regexp
	matchers []*compiledMatcher
}

// compiledMatcher is one entry of a rule's match list, compiled.
type compiledMatcher struct {
	kind matcherKind
	id   int // index in Engine.matchers
	rule int // index in Engine.compiled
	min  int // evidence needed for the entry to match

	lines      *linesProgram
	events     *eventsProgram
	junit      *junitProgram
	upgrade    string
	disruption *disruptionProgram
	sequence   *sequenceProgram

	probes []*probe // the regexes that text lines go through

	all, not []*fastRegexp // a lines matcher's all and not, as probes ask them
}

type linesProgram struct {
	any      []anyRegex
	all, not []*regexp.Regexp
	cidr     []netip.Prefix
	// cluster adds the run's cluster networks to cidr (ClusterCIDR).
	cluster bool
}

// checksIP says whether the lines' "ip" groups must hold an address of
// some network.
func (l *linesProgram) checksIP() bool { return len(l.cidr) > 0 || l.cluster }

// anyRegex is an "any" regex and the index of its "ip" group (-1: none).
type anyRegex struct {
	re      *regexp.Regexp
	ipGroup int
}

type eventsProgram struct {
	message, locator, reason *regexp.Regexp
}

type junitProgram struct {
	name   *regexp.Regexp
	status []prow.TestStatus
}

type disruptionProgram struct {
	backend *regexp.Regexp
	min     time.Duration
}

type differentKind uint8

const (
	differentNone differentKind = iota
	differentNamespace
	differentNode
)

type sequenceProgram struct {
	first, then *regexp.Regexp
	within      time.Duration
	different   differentKind
}

// probeKind is what a probe's regex decides.
type probeKind uint8

const (
	probeAny   probeKind = iota // one of a lines matcher's any regexes
	probeAll                    // stands for a lines matcher without any
	probeThen                   // a sequence's then
	probeFirst                  // a sequence's first
)

// probe is a regex that text lines are given to, and the sets of literals
// a line must contain one of each of for the regex to be worth running
// (none: every line).
type probe struct {
	kind    probeKind
	matcher *compiledMatcher
	re      *regexp.Regexp
	fast    *fastRegexp // re, asked through its automaton
	cidr    *lazyDFA    // re with its ip group made an address of the cidr, or nil
	// cidrDefault says that cidr was made with DefaultClusterNetwork for
	// the run's cluster networks: it filters only runs on that network.
	cidrDefault bool
	group       *groupFinder // finds what re's first match captures in its ip group, or nil
	ipGroup     int
	lits        [][]string
}

// probesOf returns the probes of a lines or sequence matcher.
func probesOf(m *compiledMatcher) []*probe {
	var out []*probe
	switch m.kind {
	case kindLines:
		for _, a := range m.lines.any {
			pr := &probe{kind: probeAny, matcher: m, re: a.re, ipGroup: a.ipGroup, lits: requiredLiterals(a.re.String())}
			if a.ipGroup >= 0 && m.lines.checksIP() {
				nets := m.lines.cidr
				if m.lines.cluster {
					nets = append(slices.Clone(nets), DefaultClusterNetwork)
					pr.cidrDefault = true
				}
				pr.cidr = cidrDFA(a.re.String(), a.ipGroup, nets)
				pr.group = newGroupFinder(a.re.String(), a.ipGroup)
			}
			out = append(out, pr)
		}
		if len(m.lines.any) == 0 {
			// Every "all" regex must match, so the literals any of them
			// requires are required.
			var sets [][]string
			for _, re := range m.lines.all {
				sets = append(sets, requiredLiterals(re.String())...)
			}
			slices.SortStableFunc(sets, compareSets)
			out = append(out, &probe{kind: probeAll, matcher: m, ipGroup: -1, lits: sets[:min(len(sets), maxConjuncts)]})
		}
		for _, re := range m.lines.all {
			m.all = append(m.all, newFastRegexp(re))
		}
		for _, re := range m.lines.not {
			m.not = append(m.not, newFastRegexp(re))
		}
	case kindSequence:
		s := m.sequence
		out = append(out,
			&probe{kind: probeThen, matcher: m, re: s.then, ipGroup: -1, lits: requiredLiterals(s.then.String())},
			&probe{kind: probeFirst, matcher: m, re: s.first, ipGroup: -1, lits: requiredLiterals(s.first.String())})
	}
	for _, pr := range out {
		if pr.re != nil {
			pr.fast = newFastRegexp(pr.re)
		}
	}
	return out
}

// numberDFAs numbers the automata of m's probes from n, and returns the
// next number.
func numberDFAs(m *compiledMatcher, n int) int {
	number := func(d *lazyDFA) {
		if d != nil {
			d.id = n
			n++
		}
	}
	for _, pr := range m.probes {
		if pr.fast != nil {
			number(pr.fast.dfa)
		}
		number(pr.cidr)
		if pr.group != nil {
			number(pr.group.rest)
		}
	}
	for _, f := range append(slices.Clone(m.all), m.not...) {
		number(f.dfa)
	}
	return n
}

// program is what one file is matched with: the probes of the rules whose
// globs match it and the automaton of their literals.
type program struct {
	kind   fileKind
	probes []*probe
	ac     *automaton // nil when no probe has literals, or when skipProbes is set
	skip   *skipper   // finds the lines worth the automaton, or nil: every line is
	// skipProbes[i] are the probes whose first set holds the skipper's
	// literal i, when it notes them (at most 64 literals): the lines it
	// finds then go to those probes directly, without the automaton.
	skipProbes [][]int32
	litTarget  [][]litTarget // literal -> the probe sets it belongs to
	full       []uint8       // probe -> the mask of all its sets
	always     []int32       // probes without literals
	matchers   []*compiledMatcher
}

// litTarget is one literal set of a probe.
type litTarget struct {
	probe int32
	bit   uint8
}

// programFor returns the program for a file of kind read by active rules.
func (e *Engine) programFor(kind fileKind, active []bool) *program {
	key := make([]byte, 1+len(active))
	key[0] = byte(kind)
	for i, a := range active {
		if a {
			key[i+1] = 1
		}
	}
	e.mu.Lock()
	p := e.programs[string(key)]
	e.mu.Unlock()
	if p != nil {
		return p
	}
	p = e.compileProgram(kind, active)
	e.mu.Lock()
	if len(e.programs) < maxPrograms {
		e.programs[string(key)] = p
	}
	e.mu.Unlock()
	return p
}

func (e *Engine) compileProgram(kind fileKind, active []bool) *program {
	p := &program{kind: kind}
	for _, cr := range e.compiled {
		if !active[cr.index] {
			continue
		}
		for _, m := range cr.matchers {
			switch {
			case kind == fileDisruption && m.kind == kindDisruption,
				kind == fileEvents && m.kind == kindEvents:
				p.matchers = append(p.matchers, m)
			case kind != fileDisruption && (m.kind == kindLines || m.kind == kindSequence):
				p.matchers = append(p.matchers, m)
				p.probes = append(p.probes, m.probes...)
			}
		}
	}
	var lits []string
	index := make(map[string]int32)
	p.full = make([]uint8, len(p.probes))
	budget := maxAutomatonStates // the trie has at most one state per byte
	for i, pr := range p.probes {
		size := 0
		for _, set := range pr.lits {
			for _, l := range set {
				size += len(l)
			}
		}
		if len(pr.lits) == 0 || size > budget {
			// Without literals, or past what one automaton should
			// hold: the probe runs on every line.
			p.always = append(p.always, int32(i))
			continue
		}
		budget -= size
		for bit, set := range pr.lits {
			p.full[i] |= 1 << bit
			for _, l := range set {
				li, ok := index[l]
				if !ok {
					li = int32(len(lits))
					index[l] = li
					lits = append(lits, l)
					p.litTarget = append(p.litTarget, nil)
				}
				t := litTarget{probe: int32(i), bit: uint8(bit)}
				if !slices.Contains(p.litTarget[li], t) {
					p.litTarget[li] = append(p.litTarget[li], t)
				}
			}
		}
	}
	if len(lits) > 0 {
		// Every probe requires a literal of its first set: a line with
		// none of those calls for no probe, and need not be scanned.
		var first []string
		for i, pr := range p.probes {
			if p.full[i] != 0 {
				first = append(first, pr.lits[0]...)
			}
		}
		p.skip = newSkipper(dedup(first))
		if p.skip != nil && len(p.skip.lits) <= 64 {
			p.skipProbes = make([][]int32, len(p.skip.lits))
			for li, l := range p.skip.lits {
				for i, pr := range p.probes {
					if p.full[i] != 0 && slices.Contains(pr.lits[0], l) {
						p.skipProbes[li] = append(p.skipProbes[li], int32(i))
					}
				}
			}
		} else {
			// The automaton finds the literals of the lines the
			// skipper finds, or of every line.
			p.ac = newAutomaton(lits)
		}
	}
	return p
}
