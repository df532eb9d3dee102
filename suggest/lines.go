package suggest

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"slices"

	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/prow"
)

// FromLines proposes rules for log lines that someone quoted (a bug
// report's), none of which a rule matches: the lines are normalised and
// clustered as failure texts are, and each cluster becomes a rule of
// files whose expression, built from the cluster's common literal text,
// matches every line of it. A line too plain for a rule of its own (less
// literal text than a rule needs) is left out, as are lines whose rule
// would not load. The proposals carry no counts: the lines are one
// report's, not runs'; note, one sentence, says where they came from in
// the rule's description.
func FromLines(lines, files []string, note string) []Proposal {
	var n normalizer
	byText := make(map[string]*template)
	var tps []*template
	for i, raw := range lines {
		raw = prow.StripANSI(raw)
		n.reset()
		n.line(raw)
		if len(n.out) == 0 {
			continue
		}
		text := string(n.out)
		tp := byText[text]
		if tp == nil {
			tp = &template{kind: KindLog, text: text, order: len(tps)}
			byText[text] = tp
			tps = append(tps, tp)
		}
		tp.texts++
		tp.runs = append(tp.runs, uint32(i))
		tp.example = append(tp.example, capText(raw, maxExample))
	}
	var out []Proposal
	ids := make(map[string]bool)
	clusters, _ := clustered(tps)
	for _, cl := range clusters {
		for _, group := range splitUnmatched(cl) {
			p, ok := fromCluster(group, files, note)
			if !ok {
				continue
			}
			for ids[p.ID] {
				p.ID += "-x"
			}
			ids[p.ID] = true
			p.rule.ID = p.ID
			p.Rule = ruleText(p)
			if _, err := classify.ParseRules("proposed", []byte("symptoms:\n"+p.Rule)); err != nil {
				continue
			}
			out = append(out, p)
		}
	}
	return out
}

// splitUnmatched is the cluster, and then each member whose lines the
// cluster's expression does not match as a cluster of its own: every line
// given is proposed for.
func splitUnmatched(cl *cluster) []*cluster {
	toks, ok := bestLine(cl)
	if !ok {
		if len(cl.members) == 1 {
			return nil
		}
		var out []*cluster
		for _, m := range cl.members {
			out = append(out, &cluster{members: []*template{m}})
		}
		return out
	}
	_, re, ok := linePattern(toks, cl.members[0].example[0])
	keep := &cluster{}
	var rest []*cluster
	for _, m := range cl.members {
		all := ok
		for _, ex := range m.example {
			all = all && matchesLine(re, ex)
		}
		if all {
			keep.members = append(keep.members, m)
		} else if len(cl.members) > 1 {
			rest = append(rest, &cluster{members: []*template{m}})
		}
	}
	if len(keep.members) == 0 {
		return rest
	}
	return append([]*cluster{keep}, rest...)
}

// bestLine is the common line of a cluster a rule is made of: the one
// that the most members share with enough literal text.
func bestLine(cl *cluster) ([]ctok, bool) {
	lines := commonLines(cl)
	best := -1
	for i, l := range lines {
		if l.literal < minLiteral || words(l.toks) < minWords {
			continue
		}
		if best < 0 || len(l.members) > len(lines[best].members) {
			best = i
		}
	}
	if best < 0 {
		return nil, false
	}
	return lines[best].toks, true
}

// linePattern is the expression of a common line of log text that
// matches example, blanks as one blank or, failing that, as \s+.
func linePattern(toks []ctok, example string) (string, *regexp.Regexp, bool) {
	for _, wide := range []bool{false, true} {
		pattern := expression(toks, false, wide)
		re, err := regexp.Compile(pattern)
		if err != nil {
			return "", nil, false
		}
		if matchesLine(re, example) {
			return pattern, re, true
		}
	}
	return "", nil, false
}

// fromCluster builds the proposal of a cluster of quoted lines, whose
// expression must match every one of them.
func fromCluster(cl *cluster, files []string, note string) (Proposal, bool) {
	toks, ok := bestLine(cl)
	if !ok {
		return Proposal{}, false
	}
	pattern, re, ok := linePattern(toks, cl.members[0].example[0])
	if !ok {
		return Proposal{}, false
	}
	p := Proposal{Kind: KindLog, Pattern: pattern, Files: slices.Clone(files), Template: cl.members[0].text, note: note}
	for _, m := range cl.members {
		for _, ex := range m.example {
			if !matchesLine(re, ex) {
				return Proposal{}, false
			}
			p.Examples = append(p.Examples, ex)
		}
	}
	p.shown = display(toks)
	hash := fnv.New32a()
	hash.Write([]byte(pattern))
	s := slug(toks)
	if s == "" {
		s = "failure"
	}
	p.ID = fmt.Sprintf("proposed-%s-%04x", s, hash.Sum32()&0xffff)
	p.Title = "log line: " + p.shown
	p.rule = classify.Rule{ID: p.ID, Title: p.Title, Files: p.Files,
		Match: []classify.Matcher{{Lines: &classify.LinesMatcher{Any: []string{pattern}}}}}
	return p, true
}
