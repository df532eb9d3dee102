package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/bugreport"
	"github.com/openshift-eng/prowcrawl/internal/safe"
)

// FormatText is the short plain text of a bug's draft, for a terminal.
const FormatText = "text"

// BugFormats are the formats of a bug report's draft answer.
var BugFormats = []string{FormatText, FormatMarkdown, FormatJSON}

// bugLines is how many of a symptom's lines the text and Markdown quote.
const bugLines = 3

// WriteBug renders the draft answer to a bug report: plain text for a
// terminal (FormatText), a comment to paste into the bug (FormatMarkdown),
// or JSON ({"symptoms", "runs", "assessments", ...}).
func WriteBug(w io.Writer, r bugreport.Report, format string) error {
	switch format {
	case FormatText, "":
		return writeBugText(w, r)
	case FormatMarkdown:
		return writeBugMarkdown(w, r)
	case FormatJSON:
		return writeIndentedJSON(w, r)
	}
	return fmt.Errorf("a bug's draft has no format %q (want %s)", format, strings.Join(BugFormats, ", "))
}

// historyWords says a proposed symptom's history in one line.
func historyWords(h *bugreport.History) string {
	if h == nil {
		return "history not measured (no artifact cache)"
	}
	s := fmt.Sprintf("%d of %d cached runs show it (%d failed)", h.Runs, h.Searched, h.Failed)
	if h.Runs > 0 {
		var edges []string
		for _, e := range h.Edges {
			if e.RunsWith > 0 {
				edges = append(edges, fmt.Sprintf("%s: %d of %d", dashIfEmpty(e.Edge), e.RunsWith, e.Runs))
			}
		}
		if len(edges) > 0 {
			s += "; on " + strings.Join(edges, ", ")
		}
		s += "; first seen " + h.FirstSeen + ", last seen " + h.LastSeen
	}
	if h.NotCached > 0 {
		s += fmt.Sprintf("; %d stored runs not in the cache", h.NotCached)
	}
	return s
}

// runWords says a linked run in one line.
func runWords(r bugreport.Run) string {
	if r.Error != "" {
		return fmt.Sprintf("%s #%d: not read: %s", r.Job, r.BuildID, r.Error)
	}
	syms := "no symptom"
	if len(r.Symptoms) > 0 {
		syms = strings.Join(r.Symptoms, ", ")
	}
	return fmt.Sprintf("%s #%d: edge %s, payload %s, %s; %s (read from the %s)",
		r.Job, r.BuildID, dashIfEmpty(r.Edge), dashIfEmpty(r.ToVersion), dashIfEmpty(r.Result), syms, r.ReadFrom)
}

// dumpWords says what a clusterversion dump shows.
func dumpWords(r bugreport.Report) string {
	d := r.Cluster
	return fmt.Sprintf("%s -> %s, history[0] %s (line %d), edge %s", dashIfEmpty(d.FromVersion), d.ToVersion, d.State, d.At, dashIfEmpty(r.Edge))
}

func writeBugText(w io.Writer, r bugreport.Report) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, lineArgs(args)...) }
	if len(r.Symptoms) == 0 {
		p("No symptom: no rule matches the bug's lines, and none of them reads as a failure to propose one from.\n")
	}
	for i, s := range r.Symptoms {
		if i == 0 {
			p("Symptoms\n")
		}
		p("  %s (%s): %s\n", s.ID, s.Source, clip(s.Title, 100))
		for k, l := range s.Lines {
			if k == bugLines {
				p("      ... and %d more lines\n", len(s.Lines)-k)
				break
			}
			p("      line %d: %s\n", s.At[k], clip(l, 100))
		}
		if s.Source == bugreport.SourceProposed {
			p("      %s\n", historyWords(s.History))
			p("      rule:\n")
			for _, l := range strings.Split(strings.TrimRight(s.Rule, "\n"), "\n") {
				p("        %s\n", l)
			}
		}
	}
	if r.Cluster != nil {
		p("Cluster version: %s\n", dumpWords(r))
	}
	for i, run := range r.Runs {
		if i == 0 {
			p("Runs\n")
		}
		p("  %s\n    %s\n", run.URL, runWords(run))
	}
	for i, a := range r.Assessments {
		if i == 0 {
			p("Answers (from the stored history; --format markdown drafts the comment)\n")
		}
		p("  %s: %s\n", a.SymptomID, a.Summary)
		p("    Who is impacted? %s\n", a.Impacted.Text)
		p("    What is the impact? %s\n", a.Impact.Text)
		p("    How involved is remediation? %s\n", a.Remediation.Text)
		p("    Is this a regression? %s\n", a.Regression.Text)
	}
	for i, f := range r.Fill {
		if i == 0 {
			p("No stored history of these edges; to fill it:\n")
		}
		p("  %s: %s\n", f.Edge, f.Command)
	}
	for _, n := range r.Notes {
		p("Note: %s\n", n)
	}
	return bw.Flush()
}

func writeBugMarkdown(w io.Writer, r bugreport.Report) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, lineArgs(args)...) }
	p("## What the bug shows\n\n")
	if len(r.Symptoms) == 0 {
		p("No rule matches the bug's lines.\n\n")
	}
	for _, s := range r.Symptoms {
		p("- %s: %s", mdCode(s.ID), safe.Markdown(s.Title))
		if s.Source == bugreport.SourceProposed {
			p(" (proposed: no rule names it yet)")
		}
		p("\n")
		for k, l := range s.Lines {
			if k == bugLines {
				p("  - ... and %d more lines\n", len(s.Lines)-k)
				break
			}
			p("  - line %d: %s\n", s.At[k], mdCode(clip(l, excerptWidth)))
		}
		if s.Source == bugreport.SourceProposed {
			p("  - %s\n", safe.Markdown(historyWords(s.History)))
		}
	}
	if r.Cluster != nil {
		p("\nThe cluster version in the bug: %s.\n", safe.Markdown(dumpWords(r)))
	}
	if len(r.Runs) > 0 {
		p("\n## Its runs\n\n")
		for _, run := range r.Runs {
			p("- [%s #%d](%s): %s\n", safe.Markdown(run.Job), run.BuildID, safe.URL(run.URL), safe.Markdown(runWords(run)))
		}
	}
	for _, s := range r.Symptoms {
		if s.Source != bugreport.SourceProposed {
			continue
		}
		p("\nA rule for %s, to check with `prowcrawl rules --check FILE` and try with `prowcrawl reclassify --rules FILE`:\n\n```yaml\nsymptoms:\n", mdCode(s.ID))
		for _, l := range strings.Split(strings.TrimRight(s.Rule, "\n"), "\n") {
			p("%s\n", strings.ReplaceAll(l, "```", "'''"))
		}
		p("```\n")
	}
	bw.WriteString("\n")
	if err := bw.Flush(); err != nil {
		return err
	}
	for _, a := range r.Assessments {
		if err := writeAssessMarkdown(w, a); err != nil {
			return err
		}
		if a.Regression.Answer == assess.AnswerYes && len(a.Blocked) > 0 {
			fmt.Fprintf(w, "\n#### Draft of blocked-edges (what CI data cannot know is marked)\n\n```yaml\n")
			if err := writeBlockedEdges(w, a); err != nil {
				return err
			}
			fmt.Fprintf(w, "```\n")
		}
		fmt.Fprintln(w)
	}
	for i, f := range r.Fill {
		if i == 0 {
			fmt.Fprintf(w, "No stored history of these edges yet; to fill it:\n\n")
		}
		fmt.Fprintf(w, "- %s: `%s`\n", safe.Markdown(f.Edge), safe.Line(f.Command))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\nNote: %s\n", safe.Markdown(n))
	}
	return nil
}
