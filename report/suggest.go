package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
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
// (ruleLines). The table fits opts.Width (titles and ids shortened in
// the middle, the details broken into lines), or with opts.Wide keeps each
// on one line.
func WriteSuggestions(w io.Writer, res suggest.Result, format string, opts Options) error {
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
		width := opts.width()
		if opts.Wide {
			width = 0
		}
		return suggestTable(w, res, width)
	}
	return fmt.Errorf("unknown format %q", format)
}

func suggestTable(w io.Writer, res suggest.Result, width int) error {
	c := res.Counts
	note := func(text string) { fmt.Fprintln(w, wrapPlain(text, cmp.Or(width, 1<<20))) }
	note("Proposed symptoms: what failed runs share that no rule explains, strongest first.")
	note(fmt.Sprintf("%d finished runs: %d failed (%d explained by no symptom), %d passed; %d failure texts, %d distinct once normalised, %d clusters.",
		c.FailedTotal+c.PassedTotal, c.FailedTotal, c.UnexplTotal, c.PassedTotal, res.Stats.Texts, res.Stats.Templates, res.Clusters))
	note("Counted: every finished run stored, presubmits, infrastructure failures and runs whose upgrade never began included: a proposal reads all failure texts, unlike a rate.")
	if st := res.Stats; st.Dropped > 0 || st.Merged > 0 {
		note(fmt.Sprintf("To bound memory (--max-templates): %d rare texts' templates folded into one beginning with the same words, %d left out (%d texts, each seen in fewer than %d runs).",
			st.Merged, st.Dropped, st.DroppedTexts, st.DroppedBelow))
	}
	if res.Wildcards > 0 {
		note(fmt.Sprintf("Left out: %d whose rule would be a few words joined by .* (a family of tests or messages, not a finding).", res.Wildcards))
	}
	fmt.Fprintln(w)
	if len(res.Proposals) == 0 {
		_, err := fmt.Fprintln(w, "Nothing to propose: no failure that no rule explains recurs in enough failed runs while rare in passed ones.")
		return err
	}
	var body [][]string
	for i, p := range res.Proposals {
		edge := p.Edge
		if edge == "" {
			edge = "-"
		}
		title := p.Title
		if p.Generic {
			title = "(generic) " + title
		}
		body = append(body, []string{strconv.Itoa(i + 1), p.ID, fmt.Sprintf("%d/%d %s", p.Failed, p.FailedTotal, pct(p.FailedRate())),
			fmt.Sprintf("%d/%d", p.Unexplained, p.UnexplTotal), fmt.Sprintf("%d/%d %s", p.Passed, p.PassedTotal, pct(p.PassedRate())),
			fmt.Sprintf("%.2g", p.P), edge, title})
	}
	header := []string{"#", "ID", "FAILED", "UNEXPLAINED", "PASSED", "P", "EDGE", "TITLE"}
	cut := []int{7, 1}
	if width > 0 {
		// Each proposal's id is under the table, by its number: the title
		// is what to read first.
		header = slices.Delete(header, 1, 2)
		for i := range body {
			body[i] = slices.Delete(body[i], 1, 2)
		}
		cut = []int{6}
	}
	if err := writeFitted(w, header, body, width, cut...); err != nil {
		return err
	}
	// detail is one labelled line of a proposal, broken where it would
	// not fit.
	detail := func(label, text string) {
		const indent = "            "
		if width == 0 {
			fmt.Fprintf(w, "   %-9s%s\n", label, text)
			return
		}
		for i, part := range breakRunes(text, width-len(indent)) {
			if i == 0 {
				fmt.Fprintf(w, "   %-9s%s\n", label, part)
			} else {
				fmt.Fprintf(w, "%s%s\n", indent, part)
			}
		}
	}
	for i, p := range res.Proposals {
		fmt.Fprintf(w, "\n%d. %s (%s)\n", i+1, safe.Line(p.ID), safe.Line(string(p.Kind)))
		detail("matches:", safe.Line(p.Pattern))
		detail("files:", safe.Line(strings.Join(p.Files, " ")))
		if cz := p.Concentrated; cz != nil {
			var jobs []string
			for _, j := range cz.Jobs[:min(len(cz.Jobs), 3)] {
				if width > 0 {
					j = strings.TrimPrefix(j, periodicPrefix)
				}
				jobs = append(jobs, safe.Line(j))
			}
			if len(cz.Jobs) > 3 {
				jobs = append(jobs, fmt.Sprintf("and %d more", len(cz.Jobs)-3))
			}
			their := map[bool]string{true: "their", false: "its"}[len(cz.Jobs) > 1]
			text := fmt.Sprintf("%s: %d of %s %d failed runs where it is unexplained, against %d of %d elsewhere",
				strings.Join(jobs, ", "), cz.In, their, cz.InOf, cz.Out, cz.OutOf)
			if width == 0 {
				detail("where:", text)
			} else {
				fmt.Fprintln(w, wrap(text, "   where:   ", "            ", width))
			}
		}
		var names []string
		for _, r := range p.Runs[:min(len(p.Runs), suggestRunsShown)] {
			job := r.Job
			if width > 0 {
				job = strings.TrimPrefix(job, periodicPrefix)
			}
			names = append(names, fmt.Sprintf("%s/%d", safe.Line(job), r.BuildID))
		}
		more := ""
		if len(p.Runs) > suggestRunsShown {
			more = fmt.Sprintf(" and %d more", len(p.Runs)-suggestRunsShown)
		}
		if width == 0 {
			detail("runs:", strings.Join(names, ", ")+more)
		} else {
			fmt.Fprintln(w, wrap(strings.Join(names, ", ")+more, "   runs:    ", "            ", width))
		}
	}
	if width > 0 {
		fmt.Fprintln(w)
		note("Jobs are named without " + periodicPrefix + "; whole names and each detail on one line: --wide.")
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
