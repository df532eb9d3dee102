package report

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/db"
)

// Row is a verdict as the CSV and JSON formats write it. The field names are
// the columns of symptom_verdicts (and delta_points of v_regressions), so
// that a script reads the same names from a report and from the database.
// Rates are fractions; a rate or p-value that does not exist is null (an
// empty CSV field). These names are stable: add fields, never rename them.
type Row struct {
	SymptomID   string   `json:"symptom_id"`
	Title       string   `json:"title"`
	Scope       string   `json:"scope"`
	ScopeKey    string   `json:"scope_key"`
	Comparison  string   `json:"comparison"`
	SampleLabel string   `json:"sample_label"`
	SampleRuns  int      `json:"sample_runs"`
	SampleHits  int      `json:"sample_hits"`
	SampleRate  *float64 `json:"sample_rate"`
	BasisLabel  string   `json:"basis_label"`
	BasisRuns   int      `json:"basis_runs"`
	BasisHits   int      `json:"basis_hits"`
	BasisRate   *float64 `json:"basis_rate"`
	DeltaPoints *float64 `json:"delta_points"`
	PValue      *float64 `json:"p_value"`
	Verdict     string   `json:"verdict"`
	Bug         string   `json:"bug"`
	// Reason says why a row's verdict is insufficient: "no basis
	// (4.11->4.12 minor never ran)" or "not enough runs"; "" for a verdict.
	Reason string `json:"reason"`
	// The 95 % Wilson intervals of the rates, the dates (RFC 3339) of the
	// first and last run counted on each side, and the finished runs each
	// side left out because their upgrade never began.
	SampleRateLow  *float64 `json:"sample_rate_low"`
	SampleRateHigh *float64 `json:"sample_rate_high"`
	BasisRateLow   *float64 `json:"basis_rate_low"`
	BasisRateHigh  *float64 `json:"basis_rate_high"`
	SampleFrom     string   `json:"sample_from"`
	SampleTo       string   `json:"sample_to"`
	BasisFrom      string   `json:"basis_from"`
	BasisTo        string   `json:"basis_to"`
	SampleLeftOut  int      `json:"sample_left_out"`
	BasisLeftOut   int      `json:"basis_left_out"`
	// The finished runs of each side that the rule's current version has
	// not read yet: counted neither as showing it nor as not.
	SampleUnclassified int `json:"sample_unclassified"`
	BasisUnclassified  int `json:"basis_unclassified"`
}

// rowOf is v as a Row. Floats are rounded to six significant digits: the
// last bits of a p-value differ between machines, a report must not.
// bounded is Query.isBounded, for the reason of a row without a verdict.
func rowOf(v db.SymptomVerdict, bounded bool) Row {
	slo, shi := analyze.Wilson(v.SampleHits, v.SampleRuns)
	blo, bhi := analyze.Wilson(v.BasisHits, v.BasisRuns)
	return Row{
		SymptomID: v.Symptom, Title: v.Title, Scope: v.Scope, ScopeKey: v.Key, Comparison: v.Comparison,
		SampleLabel: v.SampleLabel, SampleRuns: v.SampleRuns, SampleHits: v.SampleHits, SampleRate: round6(v.SampleRate),
		BasisLabel: v.BasisLabel, BasisRuns: v.BasisRuns, BasisHits: v.BasisHits, BasisRate: round6(v.BasisRate),
		DeltaPoints: round6(deltaPoints(v)), PValue: round6(v.P), Verdict: v.Verdict, Bug: v.Bug, Reason: reason(v, bounded),
		SampleRateLow: round6(slo), SampleRateHigh: round6(shi), BasisRateLow: round6(blo), BasisRateHigh: round6(bhi),
		SampleFrom: rfc3339(v.SampleFrom), SampleTo: rfc3339(v.SampleTo), BasisFrom: rfc3339(v.BasisFrom), BasisTo: rfc3339(v.BasisTo),
		SampleLeftOut: v.SampleLeftOut, BasisLeftOut: v.BasisLeftOut,
		SampleUnclassified: v.SampleUnclassified, BasisUnclassified: v.BasisUnclassified,
	}
}

// rfc3339 is t as stored, "" for the zero time.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// round6 is f to six significant digits, nil for NaN.
func round6(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 6, 64), 64)
	return &r
}

// rowHeader is the CSV header: the JSON field names, in order.
var rowHeader = []string{"symptom_id", "title", "scope", "scope_key", "comparison",
	"sample_label", "sample_runs", "sample_hits", "sample_rate",
	"basis_label", "basis_runs", "basis_hits", "basis_rate",
	"delta_points", "p_value", "verdict", "bug",
	"sample_rate_low", "sample_rate_high", "basis_rate_low", "basis_rate_high",
	"sample_from", "sample_to", "basis_from", "basis_to", "sample_left_out", "basis_left_out", "reason",
	"sample_unclassified", "basis_unclassified"}

func (r Row) record() []string {
	return []string{r.SymptomID, r.Title, r.Scope, r.ScopeKey, r.Comparison,
		r.SampleLabel, strconv.Itoa(r.SampleRuns), strconv.Itoa(r.SampleHits), csvFloat(r.SampleRate),
		r.BasisLabel, strconv.Itoa(r.BasisRuns), strconv.Itoa(r.BasisHits), csvFloat(r.BasisRate),
		csvFloat(r.DeltaPoints), csvFloat(r.PValue), r.Verdict, r.Bug,
		csvFloat(r.SampleRateLow), csvFloat(r.SampleRateHigh), csvFloat(r.BasisRateLow), csvFloat(r.BasisRateHigh),
		r.SampleFrom, r.SampleTo, r.BasisFrom, r.BasisTo, strconv.Itoa(r.SampleLeftOut), strconv.Itoa(r.BasisLeftOut), r.Reason,
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
		if err := cw.Write(rowOf(v, d.Query.Bounded()).record()); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSON renders d's rows as a JSON array of objects (see Row), one per
// line, in report order. No rows is an empty array.
func WriteJSON(w io.Writer, d analyze.Table) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("[")
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "4.13->4.14", not "4.13-\u003e4.14"
	for i, v := range d.Rows {
		b.Reset()
		if err := enc.Encode(rowOf(v, d.Query.Bounded())); err != nil {
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

// WriteMarkdown renders d as a Markdown table (GitHub's), with the heading
// and the count of verdicts, to paste into a bug or a pull request; it
// hides the rows the table hides.
func WriteMarkdown(w io.Writer, d analyze.Table) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n\n", heading(d))
	rows, hidden := shownRows(d)
	if len(rows) == 0 {
		if hidden > 0 {
			fmt.Fprintf(bw, "No row has %d or more counted runs in the sample. %s\n", d.Query.Thresholds().MinRuns, hiddenRows(d, hidden))
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
			c[i] = mdCell(c[i])
		}
		if verdictANSI(v.Verdict) != "" {
			c[len(c)-1] = "**" + c[len(c)-1] + "**"
		}
		fmt.Fprintf(bw, "| %s |\n", strings.Join(c, " | "))
	}
	fmt.Fprintf(bw, "\n%s: %s. %s\n", plural(len(rows), "row"), counts(rows), countedRows(d))
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

// mdCell escapes what would break a Markdown table cell or start an HTML
// tag. Job names and edges hold nothing else that Markdown would read.
var mdCell = strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;").Replace
