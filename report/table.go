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
		return WriteMarkdown(w, d)
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
// first, with a heading and a count of verdicts. Rows with fewer counted
// sample runs than the analysis's minimum are left out and counted in a
// footer (shownRows).
func WriteTable(w io.Writer, d analyze.Table, opts Options) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, heading(d))
	rows, hidden := shownRows(d)
	if len(rows) == 0 {
		if hidden > 0 {
			fmt.Fprintf(bw, "No row has %d or more counted runs in the sample.\n%s\n", d.Query.Thresholds().MinRuns, hiddenRows(d, hidden))
		} else {
			fmt.Fprintln(bw, noVerdicts(d.Query))
		}
		return bw.Flush()
	}
	fmt.Fprintln(bw)
	// Aligned first, coloured after: tabwriter would count the escape
	// codes as width.
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(headers(d.Query.Scope()), "\t"))
	for _, v := range rows {
		fmt.Fprintln(tw, strings.Join(lineCells(cells(v, d.Query.Bounded())), "\t"))
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
	fmt.Fprintf(bw, "\n%s: %s. %s\n", assess.Plural(len(rows), "row"), counts(rows), countedRows(d))
	if h := hiddenRows(d, hidden); h != "" {
		fmt.Fprintln(bw, h)
	}
	fmt.Fprintln(bw, "Details of one symptom: prowcrawl report --assess SYMPTOM")
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
// runs the page left out of every rate, and why.
func countedRows(d analyze.Table) string {
	s := "Counted: " + bounded(d.Query) + " whose upgrade began, not infrastructure failures nor aggregated (LEFT OUT: the finished runs " +
		"counted apart), in each rule's reach, read by its current version; presubmits only in their own scope."
	if d.Query.Scope() == db.ScopeJob || d.Query.Scope() == db.ScopePresubmit {
		s += " Windows: " + d.Window + "."
	}
	return s + " " + prowcrawl.LeftOut(d.Runs.Populations)
}
