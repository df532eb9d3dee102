package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/openshift-eng/prowcrawl/internal/safe"
	"github.com/openshift-eng/prowcrawl/suggest"
)

// FormatYAML is a rules file.
const FormatYAML = "yaml"

// SuggestFormats are the formats WriteSuggestions takes, the default first.
var SuggestFormats = []string{FormatTable, FormatYAML, FormatJSON}

// suggestRunsShown is how many runs the table names per proposal.
const suggestRunsShown = 5

// proposalJSON is a proposal as --format json prints it: the rule's text,
// its runs, and its counts and rates in failed and passed runs.
type proposalJSON struct {
	suggest.Proposal
	FailedRate float64 `json:"failed_rate"`
	PassedRate float64 `json:"passed_rate"`
}

// WriteSuggestions renders proposed symptoms: a table for people, a rules
// file (yaml), or a JSON list of proposals. A proposal quotes log text
// (its pattern, its title, an example): in the table each such text is one
// safe line (safe.Line), and every line of the rules file is one too
// (ruleLines).
func WriteSuggestions(w io.Writer, res suggest.Result, format string) error {
	switch format {
	case FormatYAML:
		_, err := io.WriteString(w, ruleLines(string(suggest.RulesFile(res.Proposals))))
		return err
	case FormatJSON:
		out := make([]proposalJSON, 0, len(res.Proposals))
		for _, p := range res.Proposals {
			out = append(out, proposalJSON{Proposal: p, FailedRate: p.FailedRate(), PassedRate: p.PassedRate()})
		}
		return writeIndentedJSON(w, out)
	case FormatTable, "":
		return suggestTable(w, res)
	}
	return fmt.Errorf("unknown format %q", format)
}

func suggestTable(w io.Writer, res suggest.Result) error {
	c := res.Counts
	fmt.Fprintf(w, "Proposed symptoms: what failed runs share that no rule explains, strongest first.\n")
	fmt.Fprintf(w, "%d finished runs: %d failed (%d explained by no symptom), %d passed; %d failure texts, %d distinct once normalised, %d clusters.\n",
		c.FailedTotal+c.PassedTotal, c.FailedTotal, c.UnexplTotal, c.PassedTotal, res.Stats.Texts, res.Stats.Templates, res.Clusters)
	fmt.Fprintf(w, "Counted: every finished run stored, presubmits, infrastructure failures and runs whose upgrade never began included: a proposal reads all failure texts, unlike a rate.\n\n")
	if len(res.Proposals) == 0 {
		_, err := fmt.Fprintln(w, "Nothing to propose: no failure that no rule explains recurs in enough failed runs while rare in passed ones.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tID\tFAILED\tUNEXPLAINED\tPASSED\tP\tEDGE\tTITLE")
	for i, p := range res.Proposals {
		edge := p.Edge
		if edge == "" {
			edge = "-"
		}
		title := p.Title
		if p.Generic {
			title = "(generic) " + title
		}
		fmt.Fprintf(tw, "%d\t%s\t%d/%d %s\t%d/%d\t%d/%d %s\t%.2g\t%s\t%s\n", i+1, safe.Line(p.ID),
			p.Failed, p.FailedTotal, pct(p.FailedRate()), p.Unexplained, p.UnexplTotal,
			p.Passed, p.PassedTotal, pct(p.PassedRate()), p.P, safe.Line(edge), safe.Line(title))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for i, p := range res.Proposals {
		fmt.Fprintf(w, "\n%d. %s (%s)\n   matches: %s\n   files:   %s\n", i+1, safe.Line(p.ID), safe.Line(string(p.Kind)),
			safe.Line(p.Pattern), safe.Line(strings.Join(p.Files, " ")))
		var names []string
		for _, r := range p.Runs[:min(len(p.Runs), suggestRunsShown)] {
			names = append(names, fmt.Sprintf("%s/%d", safe.Line(r.Job), r.BuildID))
		}
		more := ""
		if len(p.Runs) > suggestRunsShown {
			more = fmt.Sprintf(" and %d more", len(p.Runs)-suggestRunsShown)
		}
		fmt.Fprintf(w, "   runs:    %s%s\n", strings.Join(names, ", "), more)
	}
	_, err := fmt.Fprint(w, "\nAs a rules file: prowcrawl suggest --format yaml > proposed.yaml; then prowcrawl rules --check proposed.yaml\nand prowcrawl reclassify --rules proposed.yaml (or backfill --refetch --rules proposed.yaml).\n")
	return err
}

func pct(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }

// ruleLines is a rules file with each of its lines one safe line: what
// safe.Line would escape (a C1 control, a bidirectional override, invalid
// UTF-8; the file already keeps log text to one line) written as the
// regular expression escape \x{...}, which a pattern reads as the same
// character, so the rule still matches what it was proposed from and
// still passes rules --check.
func ruleLines(s string) string {
	if safe.Line(s) == s {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch c := s[i : i+n]; {
		case c == "\n" || safe.Line(c) == c:
			b.WriteString(c)
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x{%x}`, s[i])
		default:
			fmt.Fprintf(&b, `\x{%x}`, r)
		}
		i += n
	}
	return b.String()
}
