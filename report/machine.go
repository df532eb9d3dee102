package report

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/internal/safe"
)

// rowHeader is the CSV header: the JSON field names, in order.
var rowHeader = []string{"symptom_id", "title", "scope", "scope_key", "comparison",
	"sample_label", "sample_runs", "sample_hits", "sample_rate",
	"basis_label", "basis_runs", "basis_hits", "basis_rate",
	"delta_points", "p_value", "verdict", "bug",
	"sample_rate_low", "sample_rate_high", "basis_rate_low", "basis_rate_high",
	"sample_from", "sample_to", "basis_from", "basis_to", "sample_left_out", "basis_left_out", "reason",
	"sample_unclassified", "basis_unclassified"}

// record is r as a CSV row. Its text cells go through safe.CSV, so that a
// spreadsheet reads a job name beginning with "=" as text, not as a
// formula; its numbers, a negative delta among them, do not.
func record(r assess.Row) []string {
	t := safe.CSV
	return []string{t(r.SymptomID), t(r.Title), t(r.Scope), t(r.ScopeKey), t(r.Comparison),
		t(r.SampleLabel), strconv.Itoa(r.SampleRuns), strconv.Itoa(r.SampleHits), csvFloat(r.SampleRate),
		t(r.BasisLabel), strconv.Itoa(r.BasisRuns), strconv.Itoa(r.BasisHits), csvFloat(r.BasisRate),
		csvFloat(r.DeltaPoints), csvFloat(r.PValue), t(r.Verdict), t(r.Bug),
		csvFloat(r.SampleRateLow), csvFloat(r.SampleRateHigh), csvFloat(r.BasisRateLow), csvFloat(r.BasisRateHigh),
		t(r.SampleFrom), t(r.SampleTo), t(r.BasisFrom), t(r.BasisTo), strconv.Itoa(r.SampleLeftOut), strconv.Itoa(r.BasisLeftOut), t(r.Reason),
		strconv.Itoa(r.SampleUnclassified), strconv.Itoa(r.BasisUnclassified)}
}

func csvFloat(f *float64) string {
	if f == nil {
		return ""
	}
	return strconv.FormatFloat(*f, 'g', -1, 64)
}

// WriteCSV renders d's rows as CSV with a header row.
func WriteCSV(w io.Writer, d analyze.Table) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(rowHeader); err != nil {
		return err
	}
	for _, v := range d.Rows {
		if err := cw.Write(record(assess.RowOf(v, d.Query.Bounded()))); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSON renders d's rows as a JSON array of objects (see assess.Row), one per
// line, in report order. No rows is an empty array.
func WriteJSON(w io.Writer, d analyze.Table) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("[")
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "4.13->4.14", not "4.13-\u003e4.14"
	for i, v := range d.Rows {
		b.Reset()
		if err := enc.Encode(assess.RowOf(v, d.Query.Bounded())); err != nil {
			return err
		}
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n")
		bw.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	}
	bw.WriteString("\n]\n")
	return bw.Flush()
}

// writeIndentedJSON writes v to w as one JSON document indented by two
// spaces, with "<", ">" and "&" as they are ("4.13->4.14", not
// "4.13-\u003e4.14"): the JSON format of an assessment, a bug's draft,
// the changes and the proposals.
func writeIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteMarkdown renders d as a Markdown table (GitHub's), with the heading
// and the count of verdicts, to paste into a bug or a pull request; it
// hides the rows the table hides.
func WriteMarkdown(w io.Writer, d analyze.Table, opts Options) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n\n", heading(d))
	rows, hidden := shownRows(d, opts.All)
	if len(rows) == 0 {
		if hidden.any() {
			fmt.Fprintf(bw, "Every row is hidden. %s\n", hiddenRows(d, hidden))
		} else {
			fmt.Fprintln(bw, noVerdicts(d.Query))
		}
		return bw.Flush()
	}
	h := headers(d.Query.Scope())
	for i := range h {
		h[i] = mdTitle(h[i])
	}
	fmt.Fprintf(bw, "| %s |\n", strings.Join(h, " | "))
	align := make([]string, len(h))
	for i := range align {
		align[i] = "---"
		if slices.Contains(numericCells, i) {
			align[i] = "--:"
		}
	}
	fmt.Fprintf(bw, "|%s|\n", strings.Join(align, "|"))
	for _, v := range rows {
		c := cells(v, d.Query.Bounded())
		for i := range c {
			// A "|" in a job name never splits the row, nor does "](" open a link.
			c[i] = safe.Markdown(c[i])
		}
		if verdictANSI(v.Verdict) != "" {
			c[len(c)-1] = "**" + c[len(c)-1] + "**"
		}
		fmt.Fprintf(bw, "| %s |\n", strings.Join(c, " | "))
	}
	fmt.Fprintf(bw, "\n%s: %s. %s\n", assess.Plural(len(rows), "row"), counts(rows), countedRows(d, true))
	if h := hiddenRows(d, hidden); h != "" {
		fmt.Fprintln(bw, h)
	}
	return bw.Flush()
}

// mdTitle is a column header in sentence case: "RUNS" -> "Runs".
func mdTitle(s string) string {
	if s == "P" {
		return "p"
	}
	return s[:1] + strings.ToLower(s[1:])
}
