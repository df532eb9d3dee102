package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/internal/safe"
)

// The formats of an assessment: FormatTable is plain text.
var AssessFormats = []string{FormatTable, FormatJSON, FormatMarkdown, FormatBlockedEdges}

// WriteAssessment renders a in format: plain text for a terminal
// (FormatTable), Markdown to paste into a bug, or JSON.
func WriteAssessment(w io.Writer, a assess.Assessment, format string) error {
	switch format {
	case FormatTable, "":
		return writeAssessText(w, a)
	case FormatMarkdown:
		return writeAssessMarkdown(w, a)
	case FormatBlockedEdges:
		return writeBlockedEdges(w, a)
	case FormatJSON:
		return writeIndentedJSON(w, a)
	}
	return fmt.Errorf("an assessment has no format %q (want %s)", format, strings.Join(AssessFormats, ", "))
}

// excerptWidth is how much of an evidence line an assessment quotes.
const excerptWidth = 160

// clip shortens s to n runes, marking the cut.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// wrap breaks s into lines of at most width runes (unless a word is
// longer): the first after first, the others after rest. "p = 0.008" and
// "4.13->4.14 minor" stay on one line.
func wrap(s, first, rest string, width int) string {
	var words []string
	for _, w := range strings.Fields(s) {
		if n := len(words); n > 0 && (w == "=" || w == "<" || words[n-1] == "p" || strings.HasSuffix(words[n-1], " =") ||
			strings.HasSuffix(words[n-1], " <") || upgradeKind(w) && strings.ContainsAny(words[n-1], "0123456789")) {
			words[n-1] += " " + w
			continue
		}
		words = append(words, w)
	}
	var b strings.Builder
	b.WriteString(first)
	n := utf8.RuneCountInString(first)
	for i, word := range words {
		l := utf8.RuneCountInString(word)
		switch {
		case i == 0:
		case n+1+l > width:
			b.WriteString("\n" + rest)
			n = utf8.RuneCountInString(rest)
		default:
			b.WriteString(" ")
			n++
		}
		b.WriteString(word)
		n += l
	}
	return b.String()
}

// upgradeKind says whether w is the kind of an edge ("4.13->4.14 minor"),
// which stays beside its releases.
func upgradeKind(w string) bool {
	switch strings.TrimRight(w, ".,;:)") {
	case "micro", "minor", "multi", "major":
		return true
	}
	return false
}

// block is text the writer laid out itself, its lines broken by wrap: the
// text format's p writes it as it is, where it makes every other string
// one safe line.
type block string

// para is s, made one safe line (safe.Line), wrapped as a paragraph of the
// text format.
func para(s string) block { return block(wrap(safe.Line(s), "   ", "   ", 79)) }

// item is s, made one safe line, wrapped as an item of a list in the text
// format.
func item(s string) block { return block(wrap(safe.Line(s), "   - ", "     ", 79)) }

// lineArgs makes every string of args one safe line (safe.Line): the
// assessment quotes job names, test names, file names and log lines from
// the bucket, whose escape sequences must not reach a terminal nor their
// newlines forge a line. A block passes as it is.
func lineArgs(args []any) []any {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = safe.Line(s)
		}
	}
	return args
}

func writeAssessText(w io.Writer, a assess.Assessment) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, lineArgs(args)...) }
	p("%s: %s\n", a.SymptomID, a.Title)
	if a.Bug != "" {
		p("Bug: %s\n", a.Bug)
	}
	p("Counted: %s.\n\n", a.Counted)
	p("%s\n", block(wrap(safe.Line("In short: "+lowerFirst(a.Summary)), "", "", 79)))

	p("\n1. Who is impacted?\n")
	if len(a.Impacted.Edges) > 0 {
		p("   By edge:\n")
		for _, s := range a.Impacted.Edges {
			p("     %s\n", s.Text)
		}
	}
	if len(a.Impacted.Variants) > 0 {
		p("   By variant (edge, platform, network, arch, topology):\n")
		for _, s := range a.Impacted.Variants {
			p("     %s\n", s.Text)
		}
	}
	if len(a.Impacted.NotSeen) > 0 {
		p("%s\n", para("Not seen on: "+joinShares(a.Impacted.NotSeen)+"."))
	}
	p("%s\n", para(a.Impacted.Text))
	for _, line := range whoLines(a.Impacted) {
		p("%s\n", item(line))
	}

	p("\n2. What is the impact?\n")
	if a.Description != "" {
		p("%s\n", para(a.Description))
	}
	p("%s\n", para(a.Impact.Text))
	if len(a.Impact.Disruption) > 0 {
		p("   Disruption (seconds a backend was unreachable, per run):\n")
		for _, d := range a.Impact.Disruption {
			p("%s\n", item(d.Text))
		}
	}
	if len(a.Impact.FailedTests) > 0 {
		p("   Tests that failed with it:\n")
		for _, t := range a.Impact.FailedTests {
			p("%s\n", item(t.Text))
		}
	}
	if len(a.Impact.Examples) > 0 {
		p("   Runs to open (failed runs on a regressed edge first):\n")
		for _, e := range a.Impact.Examples {
			p("   - %s, %s, %s: %s\n", e.Result, e.Started[:10], dashIfEmpty(e.Edge), e.URL)
			p("       %s\n", location(e))
			if e.Excerpt != "" {
				p("       %s\n", clip(e.Excerpt, excerptWidth))
			}
		}
	}

	p("\n3. How involved is remediation?\n")
	p("%s\n", para(a.Remediation.Text))
	if len(a.Remediation.Runs) > 0 {
		p("   Runs that did not recover:\n")
		for _, e := range a.Remediation.Runs {
			p("   - %s, %s, %s: %s\n", e.Result, e.Started[:10], dashIfEmpty(e.Edge), e.URL)
			p("       %s\n", e.Excerpt)
		}
	}

	p("\n4. Is this a regression?\n")
	p("%s\n", para(a.Regression.Text))
	for _, f := range a.Regression.Edges {
		p("%s\n", item(f.Text))
	}
	if len(a.Regression.Variants) > 0 {
		p("   By variant:\n")
		for _, f := range a.Regression.Variants {
			p("%s\n", item(f.Text))
		}
	}
	if len(a.Regression.Unseen) > 0 {
		p("%s\n", para("Not seen on "+strings.Join(a.Regression.Unseen, ", ")+", nor one release earlier."))
	}
	for _, t := range a.Regression.Tracked {
		p("%s\n", item(t))
	}
	p("%s\n", para("Or a one-time flake? "+a.Flake.Text))
	for _, e := range a.Flake.Edges {
		p("%s\n", item(e.Text))
	}
	if a.Flake.Window != "" {
		p("%s\n", para("Per job, the last days against the weeks before ("+a.Flake.Window+"):"))
		for _, j := range a.Flake.Jobs {
			p("%s\n", item(j.Text))
		}
		if a.Flake.QuietJobs > 0 {
			p("   %s\n", quietJobs(a.Flake.QuietJobs, len(a.Flake.Jobs)))
		}
	}
	return bw.Flush()
}

func quietJobs(n, others int) string {
	jobs := "jobs"
	if n == 1 {
		jobs = "job"
	}
	other := ""
	if others > 0 {
		other = "other "
	}
	return fmt.Sprintf("%d %s%s with runs in these windows did not show it.", n, other, jobs)
}

// location is where in the run the evidence is: "file:line".
func location(e assess.Example) string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	return e.File
}

func joinShares(ss []assess.Share) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = s.Text
	}
	return strings.Join(parts, ", ")
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// mdCode is s as inline code, whatever backticks it holds, on one safe
// line (safe.Line): no escape works inside code, and a newline there could
// end the paragraph and the code with it.
func mdCode(s string) string {
	s = safe.Line(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

func writeAssessMarkdown(w io.Writer, a assess.Assessment) error {
	bw := bufio.NewWriter(w)
	// Text from the bucket is escaped where it is written (safe.Markdown,
	// mdCode, safe.URL for a link's target); lineArgs keeps the rest to
	// one line.
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, lineArgs(args)...) }
	p("### UpgradeBlocker assessment: %s\n\n", mdCode(a.SymptomID))
	p("**%s**", safe.Markdown(a.Title))
	if a.Bug != "" {
		p(" (%s)", a.Bug)
	}
	p("  \nCounted: %s.\n\n", safe.Markdown(a.Counted))
	p("**In short:** %s\n", safe.Markdown(lowerFirst(a.Summary)))

	p("\n#### Who is impacted?\n\n")
	for _, s := range a.Impacted.Edges {
		p("- %s\n", safe.Markdown(s.Text))
	}
	if len(a.Impacted.Variants) > 0 {
		p("\nBy variant (edge, platform, network, arch, topology):\n\n")
		for _, s := range a.Impacted.Variants {
			p("- %s\n", safe.Markdown(s.Text))
		}
	}
	p("\n")
	if len(a.Impacted.NotSeen) > 0 {
		p("Not seen on: %s.\n\n", safe.Markdown(joinShares(a.Impacted.NotSeen)))
	}
	p("%s\n", safe.Markdown(a.Impacted.Text))
	if lines := whoLines(a.Impacted); len(lines) > 0 {
		p("\n")
		for _, line := range lines {
			p("- %s\n", safe.Markdown(line))
		}
	}

	p("\n#### What is the impact?\n\n")
	if a.Description != "" {
		p("%s\n\n", safe.Markdown(a.Description))
	}
	p("%s\n", safe.Markdown(a.Impact.Text))
	if len(a.Impact.Disruption) > 0 {
		p("\nDisruption (seconds a backend was unreachable, per run):\n\n")
		for _, d := range a.Impact.Disruption {
			p("- %s\n", safe.Markdown(d.Text))
		}
	}
	if len(a.Impact.FailedTests) > 0 {
		p("\nTests that failed with it:\n\n")
		for _, t := range a.Impact.FailedTests {
			p("- %s\n", safe.Markdown(t.Text))
		}
	}
	if len(a.Impact.Examples) > 0 {
		p("\nRuns to open (failed runs on a regressed edge first):\n\n")
		for _, e := range a.Impact.Examples {
			p("- [%s #%d](%s): %s, %s, %s  \n  %s", safe.Markdown(e.Job), e.BuildID, safe.URL(e.URL), e.Result, e.Started[:10],
				safe.Markdown(dashIfEmpty(e.Edge)), mdCode(location(e)))
			if e.Excerpt != "" {
				p(": %s", mdCode(clip(e.Excerpt, excerptWidth)))
			}
			p("\n")
		}
	}

	p("\n#### How involved is remediation?\n\n")
	p("%s\n", safe.Markdown(a.Remediation.Text))
	if len(a.Remediation.Runs) > 0 {
		p("\nRuns that did not recover:\n\n")
		for _, e := range a.Remediation.Runs {
			p("- [%s #%d](%s): %s, %s, %s: %s\n", safe.Markdown(e.Job), e.BuildID, safe.URL(e.URL), e.Result, e.Started[:10], safe.Markdown(dashIfEmpty(e.Edge)), safe.Markdown(e.Excerpt))
		}
	}

	p("\n#### Is this a regression?\n\n")
	p("%s\n\n", safe.Markdown(a.Regression.Text))
	for _, f := range a.Regression.Edges {
		p("- %s\n", safe.Markdown(f.Text))
	}
	if len(a.Regression.Variants) > 0 {
		p("\nBy variant:\n\n")
		for _, f := range a.Regression.Variants {
			p("- %s\n", safe.Markdown(f.Text))
		}
	}
	if len(a.Regression.Unseen) > 0 {
		p("\nNot seen on %s, nor one release earlier.\n", safe.Markdown(strings.Join(a.Regression.Unseen, ", ")))
	}
	if len(a.Regression.Tracked) > 0 {
		p("\n")
		for _, t := range a.Regression.Tracked {
			p("- %s\n", safe.Markdown(t))
		}
	}
	p("\n**Or a one-time flake?** %s\n", safe.Markdown(a.Flake.Text))
	if len(a.Flake.Edges) > 0 {
		p("\n")
		for _, e := range a.Flake.Edges {
			p("- %s\n", safe.Markdown(e.Text))
		}
	}
	if a.Flake.Window != "" {
		p("\nPer job, the last days against the weeks before (%s):\n\n", safe.Markdown(a.Flake.Window))
		for _, j := range a.Flake.Jobs {
			p("- %s\n", safe.Markdown(j.Text))
		}
		if a.Flake.QuietJobs > 0 {
			if len(a.Flake.Jobs) > 0 {
				p("\n")
			}
			p("%s\n", quietJobs(a.Flake.QuietJobs, len(a.Flake.Jobs)))
		}
	}
	return bw.Flush()
}

// lowerFirst is s with its first letter in lower case, to follow a colon.
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// whoLines are the dates, jobs, first payload, untested edges and
// presubmits of "who is impacted", one line each.
func whoLines(im assess.Impacted) []string {
	var out []string
	if im.FirstSeen != "" {
		out = append(out, fmt.Sprintf("Seen from %s to %s, in %d job(s): %s.", im.FirstSeen, im.LastSeen, len(im.Jobs), strings.Join(im.Jobs, ", ")))
	}
	if im.FirstPayload != "" {
		out = append(out, "First payload that showed it: "+im.FirstPayload+".")
	}
	if len(im.Untested) > 0 {
		out = append(out, "Untested (no runs, so not known to be unaffected): "+strings.Join(im.Untested, ", ")+".")
	}
	if len(im.Presubmits) > 0 {
		var jobs []string
		for _, p := range im.Presubmits {
			jobs = append(jobs, p.Text)
		}
		out = append(out, "Also seen in presubmits: "+strings.Join(jobs, ", ")+"; they test pull requests, not releases, and count in no edge's rate.")
	}
	return out
}
