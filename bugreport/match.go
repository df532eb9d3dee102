package bugreport

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl/classify"
)

// Symptom sources.
const (
	SourceRule     = "rule"     // a rule of the rules (built-in or a rules file)
	SourceProposed = "proposed" // proposed from lines no rule matches
)

// Symptom is a symptom a bug report shows, with the lines that show it.
type Symptom struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Source is SourceRule or SourceProposed.
	Source string `json:"source"`
	// Rule is the rules-file text of a proposed symptom.
	Rule string `json:"rule,omitempty"`
	// Lines are the bug's lines that match, as cleaned; At their numbers
	// in the text, from 1.
	Lines []string `json:"lines"`
	At    []int    `json:"line_numbers"`
	// History is how often the stored runs show a proposed symptom.
	History *History `json:"history,omitempty"`
	// Pattern is a proposed symptom's regular expression.
	Pattern string `json:"-"`
}

// Matched is what the rules found in a bug report's text.
type Matched struct {
	Symptoms []Symptom
	// Unmatched are the quoted lines no rule matches.
	Unmatched []Line
}

// bugFile is the name the quoted lines are matched under: a text file,
// read by every rule (its place in a run is unknown, as that of a single
// file given to classify).
const bugFile = "bug-report.txt"

// anyFile is an engine of rules that each read every file.
func anyFile(rules []classify.Rule) (*classify.Engine, error) {
	all := make([]classify.Rule, len(rules))
	for i, r := range rules {
		r.Files = []string{"**"}
		all[i] = r
	}
	return classify.NewEngine(all)
}

// matcher scans quoted lines with the rules.
type matcher struct {
	eng   *classify.Engine
	start time.Time
}

// scan returns the ids of the symptoms that lines show, with an upgrade
// in state.
func (m matcher) scan(ctx context.Context, lines []string, state string) ([]string, error) {
	s := m.eng.Begin(classify.RunInfo{Start: m.start, UpgradeState: state})
	if len(lines) > 0 {
		if err := s.File(ctx, bugFile, strings.NewReader(strings.Join(lines, "\n")+"\n")); err != nil {
			return nil, err
		}
	}
	var ids []string
	for _, mt := range s.Matches() {
		ids = append(ids, mt.Symptom)
	}
	return ids, nil
}

// Match matches the text's quoted lines, and the upgrade state of its
// clusterversion dump, against rules, as a run's files are matched. start
// dates the year-less times of monitor and klog lines (the run's start,
// when known). Each symptom comes with the lines that show it: each line
// that does by itself, else (a sequence of two events) the first pair of
// lines that do together, else (the upgrade state) the dump's line. A
// wrapped line that matches nothing as joined is tried joined the other
// way (with or without a blank at each cut).
func Match(ctx context.Context, rules []classify.Rule, t Text, start time.Time) (Matched, error) {
	eng, err := anyFile(rules)
	if err != nil {
		return Matched{}, err
	}
	m := matcher{eng: eng, start: start}
	titles := make(map[string]string)
	for _, r := range eng.Rules() {
		titles[r.ID] = r.Title
	}
	lines := slices.Clone(t.Lines)
	texts := make([]string, len(lines))
	per := make([][]string, len(lines))
	for i := range lines {
		texts[i] = lines[i].Text
		ids, err := m.scan(ctx, texts[i:i+1], "")
		if err != nil {
			return Matched{}, err
		}
		if len(ids) == 0 && len(lines[i].Parts) > 1 {
			sep := ""
			if lines[i].fixed {
				sep = " "
			}
			other := strings.Join(lines[i].Parts, sep)
			if alt, err := m.scan(ctx, []string{other}, ""); err == nil && len(alt) > 0 {
				lines[i].Text, lines[i].fixed, texts[i], ids = other, sep == "", other, alt
			}
		}
		per[i] = ids
	}
	state := ""
	if t.Cluster != nil {
		state = t.Cluster.State
	}
	all, err := m.scan(ctx, texts, state)
	if err != nil {
		return Matched{}, err
	}
	used := make([]bool, len(lines))
	var out Matched
	for _, id := range all {
		s := Symptom{ID: id, Title: titles[id], Source: SourceRule}
		add := func(i int) {
			s.Lines, s.At, used[i] = append(s.Lines, lines[i].Text), append(s.At, lines[i].At), true
		}
		for i, ids := range per {
			if slices.Contains(ids, id) {
				add(i)
			}
		}
		if len(s.Lines) == 0 && t.Cluster != nil {
			if ids, err := m.scan(ctx, nil, state); err == nil && slices.Contains(ids, id) {
				s.Lines, s.At = []string{t.Cluster.Line}, []int{t.Cluster.At}
			}
		}
		if len(s.Lines) == 0 {
			pairs, err := m.pairs(ctx, texts, id)
			if err != nil {
				return Matched{}, err
			}
			for _, i := range pairs {
				add(i)
			}
		}
		out.Symptoms = append(out.Symptoms, s)
	}
	for i, l := range lines {
		if !used[i] {
			out.Unmatched = append(out.Unmatched, l)
		}
	}
	return out, nil
}

// pairs finds the lines that show symptom id in pairs (a sequence of two
// events): the first line by which the lines up to it show it, each line
// before it that shows it with that one, and each line after it that
// shows it with the first of those. It returns them in order, none when
// no lines show it.
func (m matcher) pairs(ctx context.Context, texts []string, id string) ([]int, error) {
	shows := func(lines ...string) (bool, error) {
		ids, err := m.scan(ctx, lines, "")
		return slices.Contains(ids, id), err
	}
	then := -1
	for k := range texts {
		ok, err := shows(texts[:k+1]...)
		if err != nil {
			return nil, err
		}
		if ok {
			then = k
			break
		}
	}
	if then < 0 {
		return nil, nil
	}
	var out []int
	for i := range then {
		ok, err := shows(texts[i], texts[then])
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		return []int{then}, nil
	}
	out = append(out, then)
	for k := then + 1; k < len(texts); k++ {
		ok, err := shows(texts[out[0]], texts[k])
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, k)
		}
	}
	return out, nil
}
