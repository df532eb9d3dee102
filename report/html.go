package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/db"
)

//go:embed page.html.tmpl
var pageTemplate string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"pct1":   pct1,
	"pvalue": pValue,
	"add":    func(a, b int) int { return a + b },
	"sub":    func(a, b int) int { return a - b },
}).Parse(pageTemplate))

// section is one symptom on the page: its charts.
type section struct {
	ID, Title, Bug string
	Verdict        string // the symptom's most pressing verdict
	VerdictColor   string
	Bars           barChart
	HasBars        bool
	Trend          trendChart
	HasTrend       bool
}

// pageRow is a row of the verdict table.
type pageRow struct {
	Cells   []pageCell
	Verdict string
}

type pageCell struct {
	Text    string
	Numeric bool
}

type pageData struct {
	Heading string
	Scope   string
	Counts  string
	// RowCount is "42 rows".
	RowCount string
	// Headers and Rows are the verdict table: the cells the text table
	// shows (cells), so that the page cannot say other numbers.
	Headers []string
	Rows    []pageRow
	Counted string
	// Sections are the symptoms with a hit on either side, the most
	// pressing first; Quiet the others.
	Sections []section
	Quiet    []string
	Filters  []string
	Colors   struct{ Sample, Basis string }
	// VerdictCSS colours the verdicts' text and pills.
	VerdictCSS template.CSS
	Disruption []DisruptionChart
	Open       []OpenRegression
	// Answers are the UpgradeBlocker answers of the open regressions'
	// symptoms, short, with their runs to open.
	Answers []pageAnswer
}

// pageAnswer is one symptom's four answers, each its first sentence.
type pageAnswer struct {
	Symptom, Title                          string
	Summary, Who, Impact, Remediation, Regr string
	Runs                                    []pageLink
}

type pageLink struct{ URL, Text string }

// answerRuns is how many runs an answer on the page links to.
const answerRuns = 5

// answersOf are the page's short forms of as.
func answersOf(as []assess.Assessment) []pageAnswer {
	var out []pageAnswer
	for _, a := range as {
		pa := pageAnswer{Symptom: a.SymptomID, Title: a.Title, Summary: a.Summary, Who: firstSentence(a.Impacted.Text),
			Impact: firstSentence(a.Impact.Text), Remediation: firstSentence(a.Remediation.Text), Regr: a.Regression.Text}
		for _, e := range a.Impact.Examples[:min(len(a.Impact.Examples), answerRuns)] {
			started := e.Started
			if t, err := time.Parse(time.RFC3339, e.Started); err == nil {
				started = t.UTC().Format("2006-01-02 15:04")
			}
			pa.Runs = append(pa.Runs, pageLink{URL: e.URL, Text: fmt.Sprintf("%s, %s, %s", e.Result, started, e.Edge)})
		}
		out = append(out, pa)
	}
	return out
}

// firstSentence is s up to the end of its first sentence: a full stop
// followed by a space and a capital letter.
func firstSentence(s string) string {
	for i := 0; i+2 < len(s); i++ {
		if s[i] == '.' && s[i+1] == ' ' && s[i+2] >= 'A' && s[i+2] <= 'Z' {
			return s[:i+1]
		}
	}
	return s
}

// verdictCSS is the style of every verdict: text in its colour (svg text
// by fill), pills on it.
func verdictCSS() template.CSS {
	var b strings.Builder
	for _, v := range analyze.VerdictOrder {
		c := verdictColor(v)
		b.WriteString(".v-" + v + " { color: " + c + "; fill: " + c + "; } .bg-" + v + " { background: " + c + "; }\n  ")
	}
	return template.CSS(b.String())
}

// WriteHTML renders d as one self-contained HTML page: the open
// regressions with the answers of their symptoms (answers, as
// assess.Assess gives them), for every symptom a chart of its rate per
// scope key (the basis beside the sample, with the verdict) and of its
// weekly trend per edge (when d has the weekly rates), then the verdict
// table, whose columns are the terminal table's. It needs no network and
// no JavaScript, and fits a page 1280 pixels wide.
func WriteHTML(w io.Writer, d analyze.Table, answers ...assess.Assessment) error {
	p := pageData{Heading: heading(d), Scope: scopeTitle(d.Query.Scope()), Counts: counts(d.Rows),
		RowCount: assess.Plural(len(d.Rows), "row"), Headers: narrowHeaders(d.Query.Scope()), Counted: countedRows(d, false)}
	for i, h := range p.Headers {
		p.Headers[i] = mdTitle(h)
	}
	for _, v := range d.Rows {
		r := pageRow{Verdict: v.Verdict}
		for i, c := range narrowCells(v, d.Query.Bounded()) {
			r.Cells = append(r.Cells, pageCell{Text: c, Numeric: i >= 2 && i <= 4})
		}
		p.Rows = append(p.Rows, r)
	}
	p.Answers = answersOf(answers)
	p.Colors.Sample, p.Colors.Basis = colorSample, colorBasis
	p.VerdictCSS = verdictCSS()
	p.Disruption, p.Open = disruptionCharts(d.Disruption), openRegressions(d.Open, d.Onsets)
	if d.Query.Symptom != "" {
		p.Filters = append(p.Filters, "symptom "+d.Query.Symptom)
	}
	if d.Query.Job != nil {
		p.Filters = append(p.Filters, "jobs matching "+d.Query.Job.String())
	}
	if !d.Query.Since.IsZero() {
		p.Filters = append(p.Filters, "runs started since "+d.Query.Since.UTC().Format("2006-01-02 15:04 MST"))
	}
	if !d.Query.Until.IsZero() {
		p.Filters = append(p.Filters, "runs started before "+d.Query.Until.UTC().Format("2006-01-02 15:04 MST"))
	}
	titles := map[string]db.Symptom{}
	for _, s := range d.Symptoms {
		titles[s.ID] = s
	}
	weeks, colors := mondays(d.Weekly), edgeColors(d.Weekly)
	// The rows are in report order: a symptom's first row is its most
	// pressing verdict.
	var order []string
	for _, v := range d.Rows {
		if !slices.Contains(order, v.Symptom) {
			order = append(order, v.Symptom)
		}
	}
	for _, id := range order {
		s := titles[id]
		title := strings.TrimSpace(id + " (" + s.Title + ")")
		sec := section{ID: id, Title: s.Title, Bug: s.Bug}
		for _, v := range d.Rows {
			if v.Symptom == id && v.SampleHits+v.BasisHits > 0 {
				sec.Verdict, sec.VerdictColor = v.Verdict, verdictColor(v.Verdict)
				break
			}
		}
		sec.Bars, sec.HasBars = barsOf(id, title, d.Query.Scope(), d.Rows, d.Query.Bounded())
		sec.Trend, sec.HasTrend = trendOf(id, title, d.Weekly[id], weeks, onsetMarks(d.Onsets, id), colors)
		if !sec.HasBars {
			p.Quiet = append(p.Quiet, id)
			continue
		}
		p.Sections = append(p.Sections, sec)
	}
	return page.Execute(w, p)
}
