package bugreport

import (
	"context"
	"fmt"
	"slices"

	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/prow"
	"github.com/openshift-eng/prowcrawl/suggest"
)

// proposedNote is what a proposed rule's description says of its origin.
const proposedNote = "Proposed by prowcrawl bug from log lines quoted in a bug report that no rule matches."

// filesOf are the files a rule proposed from lines of a kind reads: where
// such lines are found in a run.
func filesOf(kinds []LineKind) []string {
	files := []string{"build-log.txt", "artifacts/*/openshift-e2e-test/build-log.txt"}
	add := func(fs ...string) {
		for _, f := range fs {
			if !slices.Contains(files, f) {
				files = append(files, f)
			}
		}
	}
	for _, k := range kinds {
		switch k {
		case KindMonitor, KindEvent:
			add("artifacts/**/e2e-events*.json")
		case KindKlog, KindStructured, KindTimed:
			add("artifacts/**/gather-extra/artifacts/pods/*.log", "artifacts/*/pods/*.log", "artifacts/*/pods/*.log.gz")
		}
	}
	return files
}

// Propose proposes symptoms for the quoted lines no rule matches that read
// as failures (suggest.ErrorLike): each line is normalised, and lines that
// then read alike become one rule (suggest.FromLines). A proposal is kept
// only when it loads beside rules as `rules --check` loads a rules file
// and matches every line it was made of; the lines of it are those it
// matches.
func Propose(ctx context.Context, rules []classify.Rule, unmatched []Line) ([]Symptom, error) {
	var cands []Line
	var texts []string
	var kinds []LineKind
	for _, l := range unmatched {
		if !suggest.ErrorLike(l.Text) {
			continue
		}
		cands = append(cands, l)
		texts = append(texts, message(l.Text))
		if !slices.Contains(kinds, l.Kind) {
			kinds = append(kinds, l.Kind)
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	var out []Symptom
	for _, p := range suggest.FromLines(texts, filesOf(kinds), proposedNote) {
		rule, err := Check(rules, p.Rule)
		if err != nil {
			continue
		}
		eng, err := anyFile([]classify.Rule{rule})
		if err != nil {
			continue
		}
		m := matcher{eng: eng}
		s := Symptom{ID: p.ID, Title: p.Title, Source: SourceProposed, Rule: p.Rule, Pattern: p.Pattern}
		for i, l := range cands {
			ids, err := m.scan(ctx, texts[i:i+1], "")
			if err != nil {
				return nil, err
			}
			if len(ids) > 0 {
				s.Lines, s.At = append(s.Lines, l.Text), append(s.At, l.At)
			}
		}
		if len(s.Lines) < examplesOf(p, texts) {
			continue // it does not match a line it was made of
		}
		out = append(out, s)
	}
	return out, nil
}

// message is what a rule is proposed from of a log line: the text after
// its timestamp (and level, or klog header), without the count an event
// line ends with, which differ in every run.
func message(line string) string {
	if m, ok := prow.ParseTimedLine([]byte(line), reference); ok && m.Text != "" {
		line = m.Text
	}
	return bare(line)
}

// examplesOf counts the texts a proposal was made of.
func examplesOf(p suggest.Proposal, texts []string) int {
	n := 0
	for _, t := range texts {
		if slices.Contains(p.Examples, t) {
			n++
		}
	}
	return n
}

// Check loads the rules-file entry of a proposed rule beside rules, as
// `prowcrawl rules --check` loads a rules file: parsed, merged, compiled.
// It returns the rule.
func Check(rules []classify.Rule, entry string) (classify.Rule, error) {
	parsed, err := classify.ParseRules("proposed", []byte("symptoms:\n"+entry))
	if err != nil {
		return classify.Rule{}, err
	}
	if len(parsed) != 1 {
		return classify.Rule{}, fmt.Errorf("a proposal holds %d rules, not one", len(parsed))
	}
	if _, err := classify.NewEngine(classify.Merge(rules, parsed)); err != nil {
		return classify.Rule{}, err
	}
	return parsed[0], nil
}
