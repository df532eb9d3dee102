package report

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/internal/safe"
)

// The formats of report --changes.
var ChangesFormats = []string{FormatTable, FormatMarkdown, FormatJSON}

// changeLines is how many regressions of each list the Markdown digest
// names before it says how many more: short enough for a chat message.
const changeLines = 8

// ChangeRow is one regression in the digest of changes. The JSON names are
// stable.
type ChangeRow struct {
	Change      string   `json:"change"` // opened, reopened, closed, still_open
	SymptomID   string   `json:"symptom_id"`
	Title       string   `json:"title,omitempty"`
	Bug         string   `json:"bug,omitempty"`
	Scope       string   `json:"scope"`
	ScopeKey    string   `json:"scope_key"`
	Comparison  string   `json:"comparison"`
	Sample      string   `json:"sample_label"`
	SampleRuns  int      `json:"sample_runs"`
	SampleHits  int      `json:"sample_hits"`
	Basis       string   `json:"basis_label"`
	BasisRuns   int      `json:"basis_runs"`
	BasisHits   int      `json:"basis_hits"`
	PValue      *float64 `json:"p_value"`
	OpenedAt    string   `json:"opened_at"`
	ClosedAt    string   `json:"closed_at,omitempty"`
	AgeDays     int      `json:"age_days"` // days open, to now or to its closing
	FirstRun    string   `json:"first_run,omitempty"`
	FirstRunURL string   `json:"first_run_url,omitempty"`
	// Onset is where, by payload, a regression opened or reopened on an
	// edge or a variant began (assess.Change); absent for the others.
	Onset *assess.Change `json:"onset,omitempty"`
}

// changesDoc is the JSON of report --changes.
type changesDoc struct {
	Since    string      `json:"since,omitempty"`
	Analyses int         `json:"analyses"`
	Newest   string      `json:"analysis_computed_at,omitempty"`
	Rows     []ChangeRow `json:"changes"`
}

// The still-open state of a ChangeRow.
const stillOpen = "still_open"

// changeRows flattens c: opened, reopened, closed, then still open.
func changeRows(c db.Changes, onsets map[string]analyze.Change, now time.Time) []ChangeRow {
	rows := []ChangeRow{}
	add := func(change string, rs []db.Regression) {
		for _, r := range rs {
			// The age runs from the latest opening.
			from := r.OpenedAt
			if !r.ReopenedAt.IsZero() && r.ReopenedAt.After(from) {
				from = r.ReopenedAt
			}
			to := now
			if !r.ClosedAt.IsZero() {
				to = r.ClosedAt
			}
			row := ChangeRow{Change: change, SymptomID: r.Symptom, Title: r.Title, Bug: r.Bug, Scope: r.Scope, ScopeKey: r.Key,
				Comparison: r.Comparison, Sample: r.SampleLabel, SampleRuns: r.SampleRuns, SampleHits: r.SampleHits,
				Basis: r.BasisLabel, BasisRuns: r.BasisRuns, BasisHits: r.BasisHits, PValue: assess.Round6(r.P),
				OpenedAt: from.UTC().Format(time.RFC3339), AgeDays: max(0, int(to.Sub(from).Hours()/24)),
				FirstRun: r.FirstRun, FirstRunURL: r.FirstRunURL}
			if !r.ClosedAt.IsZero() {
				row.ClosedAt = r.ClosedAt.UTC().Format(time.RFC3339)
			}
			if o, ok := onsets[analyze.OnsetKey(r.Symptom, r.Scope, r.Key)]; ok && (change == db.ChangeOpened || change == db.ChangeReopened) {
				row.Onset = assess.ChangeOf(&o)
			}
			rows = append(rows, row)
		}
	}
	add(db.ChangeOpened, c.Opened)
	add(db.ChangeReopened, c.Reopened)
	add(db.ChangeClosed, c.Closed)
	add(stillOpen, c.StillOpen)
	return rows
}

// WriteChanges renders what the analyses since c.Since (or the newest one)
// changed in the regressions: a table for a terminal, Markdown short
// enough for a chat message or a bug comment, or JSON. now dates the age of
// the regressions still open.
func WriteChanges(w io.Writer, c db.Changes, format string, now time.Time) error {
	return WriteChangesOnsets(w, c, nil, format, now, Options{})
}

// WriteChangesOnsets is WriteChanges with the onsets of the regressions
// opened and reopened (analyze.RegressionOnsets), said under each; the
// table fits opts.Width, or has every column with opts.Wide.
func WriteChangesOnsets(w io.Writer, c db.Changes, onsets map[string]analyze.Change, format string, now time.Time, opts Options) error {
	rows := changeRows(c, onsets, now)
	switch format {
	case FormatJSON:
		doc := changesDoc{Analyses: len(c.Analyses), Rows: rows}
		if !c.Since.IsZero() {
			doc.Since = c.Since.UTC().Format(time.RFC3339)
		}
		if n := len(c.Analyses); n > 0 {
			doc.Newest = c.Analyses[n-1].ComputedAt.UTC().Format(time.RFC3339)
		}
		return writeIndentedJSON(w, doc)
	case FormatMarkdown:
		return writeChangesMarkdown(w, c, rows)
	case FormatTable, "":
		return writeChangesTable(w, c, rows, opts)
	}
	return fmt.Errorf("report --changes has no format %q (want %s)", format, strings.Join(ChangesFormats, ", "))
}

// changesHeading says which analyses the changes are of.
func changesHeading(c db.Changes) string {
	switch {
	case len(c.Analyses) == 0 && c.Since.IsZero():
		return "No analysis has been made yet (prowcrawl analyze)."
	case len(c.Analyses) == 0:
		return "No analysis since " + c.Since.UTC().Format(time.RFC3339) + "."
	case c.Since.IsZero():
		a := c.Analyses[len(c.Analyses)-1]
		return fmt.Sprintf("Regressions changed by the newest analysis (%s, runs up to %s)",
			a.ComputedAt.UTC().Format("2006-01-02 15:04 UTC"), a.AsOf.UTC().Format(time.DateOnly))
	}
	n := len(c.Analyses)
	s := "analyses"
	if n == 1 {
		s = "analysis"
	}
	return fmt.Sprintf("Regressions changed since %s (%d %s)", c.Since.UTC().Format("2006-01-02 15:04 UTC"), n, s)
}

// countsLine is "1 opened, 0 reopened, 2 closed, 3 still open."
func countsLine(c db.Changes) string {
	return fmt.Sprintf("%d opened, %d reopened, %d closed, %d still open.", len(c.Opened), len(c.Reopened), len(c.Closed), len(c.StillOpen))
}

// changeNumbers is "43% (6/14) against 0% (0/14) on 4.12->4.13 minor, p = 0.008".
func changeNumbers(r ChangeRow) string {
	p := "no test possible"
	if r.PValue != nil {
		p = assess.PPhrase(*r.PValue)
	}
	return fmt.Sprintf("%s against %s on %s, %s", rateOf(r.SampleHits, r.SampleRuns), rateOf(r.BasisHits, r.BasisRuns), r.Basis, p)
}

// writeChangesTable writes rows as a table: without opts.Wide the
// columns that fit opts.Width, each first run's link on a line of its own
// and the onsets' sentences wrapped.
func writeChangesTable(w io.Writer, c db.Changes, rows []ChangeRow, opts Options) error {
	bw := bufio.NewWriter(w)
	width := opts.width()
	if opts.Wide {
		width = 0
	}
	fmt.Fprintln(bw, changesHeading(c))
	if len(c.Analyses) == 0 {
		return bw.Flush()
	}
	fmt.Fprintln(bw)
	header := []string{"CHANGE", "SYMPTOM", "SCOPE", "KEY", "SAMPLE", "AGAINST", "P", "OPEN FOR", "FIRST RUN"}
	if width > 0 {
		header = header[:len(header)-1]
	}
	var body [][]string
	for _, r := range rows {
		p := "-"
		if r.PValue != nil {
			p = pValue(*r.PValue)
		}
		against := r.Basis + " " + rateOf(r.BasisHits, r.BasisRuns)
		if width > 0 {
			against = rateOf(r.BasisHits, r.BasisRuns)
		}
		row := []string{strings.ReplaceAll(r.Change, "_", " "), r.SymptomID, r.Scope, r.ScopeKey, rateOf(r.SampleHits, r.SampleRuns), against, p, assess.Days(r.AgeDays)}
		if width == 0 {
			row = append(row, dashIfEmpty(r.FirstRunURL))
		}
		body = append(body, row)
	}
	if len(rows) > 0 {
		var buf bytes.Buffer
		if err := writeFitted(&buf, header, body, width, 1, 3); err != nil {
			return err
		}
		for i, line := range strings.SplitAfter(buf.String(), "\n") {
			bw.WriteString(line)
			if width > 0 && i > 0 && i <= len(rows) && rows[i-1].FirstRunURL != "" {
				fmt.Fprintf(bw, "  first run: %s\n", safe.Line(rows[i-1].FirstRunURL))
			}
		}
		fmt.Fprintln(bw)
	}
	for _, r := range rows {
		if r.Onset != nil {
			fmt.Fprintln(bw, wrapPlain(fmt.Sprintf("Onset of %s on %s: %s", safe.Line(r.SymptomID), safe.Line(r.ScopeKey), safe.Line(r.Onset.Text)), cmp.Or(width, 1<<20)))
		}
	}
	fmt.Fprintln(bw, countsLine(c))
	return bw.Flush()
}

func writeChangesMarkdown(w io.Writer, c db.Changes, rows []ChangeRow) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "**%s:** %s\n", safe.Markdown(changesHeading(c)), countsLine(c))
	words := map[string]string{db.ChangeOpened: "Opened", db.ChangeReopened: "Reopened", db.ChangeClosed: "Closed", stillOpen: "Still open"}
	for _, change := range []string{db.ChangeOpened, db.ChangeReopened, db.ChangeClosed, stillOpen} {
		var list []ChangeRow
		for _, r := range rows {
			if r.Change == change {
				list = append(list, r)
			}
		}
		for i, r := range list {
			if i == changeLines {
				fmt.Fprintf(bw, "- … and %d more %s\n", len(list)-changeLines, strings.ToLower(words[change]))
				break
			}
			key := safe.Markdown(r.ScopeKey)
			if r.FirstRunURL != "" {
				// The link ends where it should, whatever the job name holds.
				key = "[" + key + "](" + safe.URL(r.FirstRunURL) + ")"
			}
			age := ""
			if change == stillOpen {
				age = ", open " + assess.Days(r.AgeDays)
			}
			onset := ""
			if o := r.Onset; o != nil && o.Found {
				onset = fmt.Sprintf("; began between payload %s and %s (%s)", mdCode(o.LastClean), mdCode(o.FirstBad), assess.PPhrase(o.PValue))
				if o.Changelog != nil {
					onset += ", [changelog](" + safe.URL(o.Changelog.URL) + ")"
				}
			} else if o != nil && o.Payloads >= 2 {
				onset = fmt.Sprintf("; no onset by payload (%s)", assess.PPhrase(o.PValue))
			}
			fmt.Fprintf(bw, "- %s %s on %s: %s%s%s\n", words[change], mdCode(r.SymptomID), key, safe.Markdown(changeNumbers(r)), age, onset)
		}
	}
	return bw.Flush()
}
