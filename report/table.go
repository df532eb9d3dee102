package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/internal/safe"
)

// The formats of a verdict report.
const (
	FormatTable    = "table"
	FormatCSV      = "csv"
	FormatJSON     = "json"
	FormatMarkdown = "markdown"
	FormatHTML     = "html"
)

// Formats are the formats Write takes, the default first.
var Formats = []string{FormatTable, FormatCSV, FormatJSON, FormatMarkdown, FormatHTML}

// Options change how a report is rendered, not what it says.
type Options struct {
	// Color marks rows by verdict with ANSI colours in the table format:
	// regressions red, new yellow, improvements green. Set it only when the
	// output is a terminal.
	Color bool
	// Wide shows every column in the table format (dates, the runs left
	// out, the comparison and the basis's name, rates with one decimal);
	// without it the table fits Width columns.
	Wide bool
	// Width is the columns the table and its notes fit, long names
	// shortened in the middle (0: DefaultWidth).
	Width int
	// All shows every row in the table and Markdown formats: also those
	// with fewer counted runs than the minimum, and those where no run of
	// either side shows the symptom.
	All bool
}

// DefaultWidth is the columns a table fits when its terminal's width is
// not known.
const DefaultWidth = 120

// width is o.Width, or DefaultWidth.
func (o Options) width() int {
	if o.Width <= 0 {
		return DefaultWidth
	}
	return o.Width
}

// Write renders d in format.
func Write(w io.Writer, d analyze.Table, format string, opts Options) error {
	switch format {
	case FormatTable, "":
		return WriteTable(w, d, opts)
	case FormatCSV:
		return WriteCSV(w, d)
	case FormatJSON:
		return WriteJSON(w, d)
	case FormatMarkdown:
		return WriteMarkdown(w, d, opts)
	case FormatHTML:
		return WriteHTML(w, d)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

// ANSI colours of the verdicts worth a glance.
const (
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiGreen  = "\x1b[32m"
	ansiReset  = "\x1b[0m"
)

func verdictANSI(v string) string {
	switch v {
	case analyze.VerdictRegression:
		return ansiRed
	case analyze.VerdictNew:
		return ansiYellow
	case analyze.VerdictImproved:
		return ansiGreen
	}
	return ""
}

// cells are a row's columns as the table, Markdown and HTML show them: the
// one rendering of a row's numbers. A rate comes with its 95 % Wilson
// interval, each side with the dates of its first and last run and the
// runs it left out because their upgrade never began; bounded is
// Selection.Bounded, for the reason of a row without a verdict.
func cells(v db.SymptomVerdict, bounded bool) []string {
	return []string{v.Symptom, v.Key, v.Comparison,
		v.SampleLabel, assess.Span(v.SampleFrom, v.SampleTo), strconv.Itoa(v.SampleRuns), strconv.Itoa(v.SampleHits),
		rateCI(v.SampleHits, v.SampleRuns), strconv.Itoa(v.SampleLeftOut),
		v.BasisLabel, assess.Span(v.BasisFrom, v.BasisTo), strconv.Itoa(v.BasisRuns), strconv.Itoa(v.BasisHits),
		rateCI(v.BasisHits, v.BasisRuns), strconv.Itoa(v.BasisLeftOut),
		pValue(v.P), verdictText(v, bounded)}
}

// numericCells are the columns of cells that hold numbers (right-aligned).
var numericCells = []int{5, 6, 7, 8, 11, 12, 13, 14, 15}

// headers are the table's and Markdown's column names for a scope.
func headers(scope string) []string {
	return []string{"SYMPTOM", scopeTitle(scope), "COMPARISON",
		"SAMPLE", "DATES", "RUNS", "HITS", "RATE (95% CI)", "LEFT OUT",
		"BASIS", "DATES", "RUNS", "HITS", "RATE (95% CI)", "LEFT OUT",
		"P", "VERDICT"}
}

// heading says what the rows compare.
func heading(d analyze.Table) string {
	switch d.Query.Scope() {
	case db.ScopeJob:
		return "Symptoms by job: the last days against the weeks before (window comparison)."
	case db.ScopePresubmit:
		return "Symptoms by presubmit job: the last days against the weeks before (window comparison); presubmits test pull requests, not releases, and count in no edge."
	case db.ScopeVariant:
		return "Symptoms by variant: each edge, platform and network against the same one a release earlier (release comparison)."
	}
	return "Symptoms by edge: each upgrade edge against the same-shaped edge one release earlier (release comparison)."
}

// WriteTable renders d as an aligned table for a terminal, regressions
// first, with a heading and a count of verdicts. Rows that say nothing
// (shownRows) are left out and counted in a footer. Without opts.Wide it
// has the columns a person decides with, and fits opts.Width.
func WriteTable(w io.Writer, d analyze.Table, opts Options) error {
	bw := bufio.NewWriter(w)
	width := opts.width()
	if opts.Wide {
		width = 1 << 20
	}
	note := func(s string) { fmt.Fprintln(bw, wrapPlain(s, width)) }
	note(heading(d))
	rows, hidden := shownRows(d, opts.All)
	if len(rows) == 0 {
		if hidden.any() {
			note("Every row is hidden.")
			note(hiddenRows(d, hidden))
		} else {
			note(noVerdicts(d.Query))
		}
		return bw.Flush()
	}
	fmt.Fprintln(bw)
	header, body := headers(d.Query.Scope()), make([][]string, len(rows))
	for i, v := range rows {
		body[i] = lineCells(cells(v, d.Query.Bounded()))
	}
	if !opts.Wide {
		header = narrowHeaders(d.Query.Scope())
		for i, v := range rows {
			body[i] = lineCells(narrowCells(v, d.Query.Bounded()))
		}
		fitColumns(header, body, width, 0, 1)
	}
	// Aligned first, coloured after: tabwriter would count the escape
	// codes as width.
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, c := range body {
		fmt.Fprintln(tw, strings.Join(c, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	lines := strings.SplitAfter(buf.String(), "\n")
	for i, line := range lines {
		if line == "" {
			continue
		}
		line = strings.TrimRight(line, " \n")
		if c := verdictANSI(rowVerdict(rows, i)); opts.Color && c != "" {
			line = c + line + ansiReset
		}
		fmt.Fprintln(bw, line)
	}
	fmt.Fprintln(bw)
	note(fmt.Sprintf("%s: %s.", assess.Plural(len(rows), "row"), counts(rows)))
	note(countedRows(d, opts.Wide))
	if h := hiddenRows(d, hidden); h != "" {
		note(h)
	}
	if !opts.Wide {
		note("Every column (dates, runs left out, the basis's name): --wide. Details of one symptom: prowcrawl report --assess SYMPTOM")
	} else {
		note("Details of one symptom: prowcrawl report --assess SYMPTOM")
	}
	return bw.Flush()
}

// lineCells is c with each cell one safe line (safe.Line): a job name's
// tab, newline or escape sequence neither splits a row nor reaches the
// terminal.
func lineCells(c []string) []string {
	for i := range c {
		c[i] = safe.Line(c[i])
	}
	return c
}

// rowVerdict is the verdict of the table's line i (0 is the header).
func rowVerdict(rows []db.SymptomVerdict, line int) string {
	if line < 1 || line > len(rows) {
		return ""
	}
	return rows[line-1].Verdict
}

// noVerdicts says why a report is empty.
func noVerdicts(q analyze.TableQuery) string {
	if !q.Since.IsZero() || !q.Until.IsZero() || q.Job != nil {
		return "No counted run matches: " + bounded(q) + "."
	}
	return "No counted run is stored: crawl first."
}

// bounded says which runs a page counts.
func bounded(q analyze.TableQuery) string {
	s := "finished runs"
	if q.Job != nil {
		s += fmt.Sprintf(" of jobs matching %q", q.Job.String())
	}
	if !q.Since.IsZero() {
		s += " started since " + q.Since.UTC().Format(time.RFC3339)
	}
	if !q.Until.IsZero() {
		s += " started before " + q.Until.UTC().Format(time.RFC3339)
	}
	return s
}

// countedRows says what the rows count, under the table, and how many
// runs the page left out of every rate, and why; leftOut says the rows have
// a LEFT OUT column, which it explains.
func countedRows(d analyze.Table, leftOut bool) string {
	s := "Counted: " + bounded(d.Query) + " whose upgrade began, not infrastructure failures nor aggregated"
	if leftOut {
		s += " (LEFT OUT: the finished runs counted apart)"
	}
	s += ", in each rule's reach, read by its current version; presubmits only in their own scope."
	if d.Query.Scope() == db.ScopeJob || d.Query.Scope() == db.ScopePresubmit {
		s += " Windows: " + d.Window + "."
	}
	return s + " " + prowcrawl.LeftOut(d.Runs.Populations)
}
