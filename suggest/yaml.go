package suggest

import (
	"fmt"
	"strings"
)

// ruleText is the rules-file entry of a proposal, indented as an item of
// the symptoms list, with comments that say what it covers.
func ruleText(p Proposal) string {
	var b strings.Builder
	sum := summary(p)
	if p.note != "" {
		sum = p.note
	}
	fmt.Fprintf(&b, "  # %s\n", comment(sum))
	for _, ex := range p.Examples[:min(1, len(p.Examples))] {
		first, _, _ := strings.Cut(strings.TrimSpace(ex), "\n")
		fmt.Fprintf(&b, "  # e.g. %s\n", comment(capText(first, 160)))
	}
	fmt.Fprintf(&b, "  - id: %s\n", p.ID)
	fmt.Fprintf(&b, "    title: %s\n", quote(p.Title))
	fmt.Fprintf(&b, "    description: %s\n", quote(description(p)))
	b.WriteString("    files:\n")
	for _, f := range p.Files {
		fmt.Fprintf(&b, "      - %s\n", quote(f))
	}
	b.WriteString("    match:\n")
	if p.rule.Match[0].JUnit != nil {
		fmt.Fprintf(&b, "      - junit:\n          name: %s\n          status: [fail]\n", quote(p.Pattern))
	} else {
		fmt.Fprintf(&b, "      - lines:\n          any:\n            - %s\n", quote(p.Pattern))
	}
	return b.String()
}

// summary is one line of counts.
func summary(p Proposal) string {
	s := fmt.Sprintf("%d of %d failed runs (%d of %d that no rule explains), %d of %d passed runs; p = %.2g",
		p.Failed, p.FailedTotal, p.Unexplained, p.UnexplTotal, p.Passed, p.PassedTotal, p.P)
	if p.Edge != "" {
		e := p.Edges[0]
		s += fmt.Sprintf("; concentrated on %s: %d of %d failed runs", e.Edge, e.Failed, e.FailedTotal)
	}
	if p.Generic {
		s += "; generic: it comes with nearly every failure of its jobs"
	}
	return s
}

func description(p Proposal) string {
	if p.note != "" {
		return p.note + " Check its runs, then give it a title, a description and a bug."
	}
	what := "a failed test's message"
	switch {
	case p.Kind == KindLog:
		what = "an error line of a log"
	case p.rule.Match[0].JUnit != nil:
		what = "the name of a failed test"
	}
	return fmt.Sprintf("Proposed by prowcrawl suggest from %s: %s. Check its runs, then give it a title, a description and a bug.",
		what, summary(p))
}

// quote writes s as a YAML single-quoted scalar, in which only a quote is
// escaped (doubled), so that a regular expression reads as written.
func quote(s string) string {
	return "'" + strings.ReplaceAll(oneLine(s), "'", "''") + "'"
}

// comment makes s safe for a YAML comment: one line.
func comment(s string) string { return oneLine(s) }

// oneLine replaces control characters, line breaks among them, by blanks.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 {
			return ' '
		}
		return r
	}, s)
}

// RulesFile is a rules file with the proposals, for a user to edit and
// pass to reclassify --rules.
func RulesFile(ps []Proposal) []byte {
	var b strings.Builder
	b.WriteString(`# Symptoms proposed by prowcrawl suggest: what failed runs share that no
# rule names, strongest first. Each is a rule in the rules-file format (see
# prowcrawl rules). Keep the ones that name a real failure, give them a
# title, a description and a bug, and try them on the stored runs:
#
#   prowcrawl rules --check FILE
#   prowcrawl reclassify --rules FILE
`)
	if len(ps) == 0 {
		b.WriteString("#\n# Nothing to propose: every failure that recurs is explained, or too rare.\n")
		return []byte(b.String())
	}
	b.WriteString("\nsymptoms:\n")
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Rule)
	}
	return []byte(b.String())
}
