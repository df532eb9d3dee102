package report

import (
	"cmp"
	"fmt"
	"html"
	"html/template"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/db"
)

// backendsPerEdge is how many backends an edge's disruption chart shows:
// those whose 95th percentile rose most against the basis.
const backendsPerEdge = 3

// DisruptionChart is one edge's disruption, drawn: every run of the edge
// and of its basis as a dot, the median-to-P95 span as a bar, the worst as
// a tick.
type DisruptionChart struct {
	Edge, Basis string
	SVG         template.HTML
}

// OpenRegression is an open regression as the HTML page lists it.
type OpenRegression struct {
	Symptom, Key, Scope string
	Numbers             string
	Since               string
	Days                int
	FirstRunURL         string
	// Onset says where, by payload, it began (analyze.RegressionOnsets);
	// when it was found, OnsetFirstBad, OnsetLastClean and OnsetP say it
	// short, with the link to the changelog between them.
	Onset                         string
	OnsetFirstBad, OnsetLastClean string
	OnsetP, ChangelogURL          string
}

// openRegressions are the open regressions as the page lists them, with
// their age.
func openRegressions(regs []db.Regression, onsets map[string]analyze.Change) []OpenRegression {
	var open []OpenRegression
	for _, r := range regs {
		from := r.OpenedAt
		if !r.ReopenedAt.IsZero() {
			from = r.ReopenedAt
		}
		row := changeRows(db.Changes{StillOpen: []db.Regression{r}}, nil, r.LastSeenAt)[0]
		since, days := from, row.AgeDays
		if !r.FirstRunAt.IsZero() && r.FirstRunAt.Before(from) {
			// Open since its first run, not the analysis that found it.
			since = r.FirstRunAt
			days = int(r.LastSeenAt.Sub(since).Hours() / 24)
		}
		open = append(open, OpenRegression{Symptom: r.Symptom, Key: r.Key, Scope: r.Scope, Numbers: changeNumbers(row),
			Since: since.UTC().Format(time.DateOnly), Days: days, FirstRunURL: r.FirstRunURL})
		if o, ok := onsets[analyze.OnsetKey(r.Symptom, r.Scope, r.Key)]; ok {
			c := assess.ChangeOf(&o)
			row := &open[len(open)-1]
			row.Onset = c.Text
			if c.Found {
				row.OnsetFirstBad, row.OnsetLastClean, row.OnsetP = c.FirstBad, c.LastClean, assess.PPhrase(c.PValue)
				if c.Changelog != nil {
					row.ChangelogURL = c.Changelog.URL
				}
			}
		}
	}
	return open
}

// disruptionCharts draws the disruption of the edges compared in stats
// (computed for the page's runs), run by run.
func disruptionCharts(stats []db.DisruptionStat) []DisruptionChart {
	byEdge := map[string][]db.DisruptionStat{}
	for _, s := range stats {
		if s.Scope == db.ScopeEdge && s.Comparison == db.CompareRelease && s.SampleRuns > 0 && s.BasisRuns > 0 && (s.SampleMax > 0 || s.BasisMax > 0) {
			byEdge[s.Key] = append(byEdge[s.Key], s)
		}
	}
	var charts []DisruptionChart
	for _, edge := range slices.Sorted(maps.Keys(byEdge)) {
		ss := byEdge[edge]
		slices.SortFunc(ss, func(a, b db.DisruptionStat) int {
			return cmp.Or(-cmp.Compare(a.P95Delta, b.P95Delta), -cmp.Compare(a.SampleMax, b.SampleMax), cmp.Compare(a.Backend, b.Backend))
		})
		ss = ss[:min(len(ss), backendsPerEdge)]
		var rows []disruptionRow
		for _, s := range ss {
			rows = append(rows, disruptionRow{backend: s.Backend, sample: s.SampleValues, basis: s.BasisValues, verdict: s.Verdict, delta: s.P95Delta})
		}
		charts = append(charts, DisruptionChart{Edge: edge, Basis: ss[0].BasisLabel,
			SVG: disruptionSVG(edge, ss[0].BasisLabel, assess.Span(ss[0].SampleFrom, ss[0].SampleTo), assess.Span(ss[0].BasisFrom, ss[0].BasisTo), rows)})
	}
	return charts
}

type disruptionRow struct {
	backend       string
	sample, basis []float64
	verdict       string
	delta         float64
}

// The geometry of a disruption chart.
const (
	dcWidth  = 760
	dcLeft   = 250
	dcPlot   = 460
	dcRowH   = 64
	dcTop    = 40
	dcSideH  = 22
	dcDotR   = 3.5
	dcLegend = 14
)

// disruptionSVG draws the rows of one edge: for each backend, the sample
// (blue) above the basis (grey). sampleDates and basisDates are the spans
// of each side's runs.
func disruptionSVG(edge, basis, sampleDates, basisDates string, rows []disruptionRow) template.HTML {
	top := 1.0
	for _, r := range rows {
		for _, v := range slices.Concat(r.sample, r.basis) {
			top = math.Max(top, v)
		}
	}
	top = niceTop(top)
	x := func(v float64) string { return fx(dcLeft + v/top*dcPlot) }
	e := html.EscapeString
	id := "disruption-" + strings.NewReplacer(" ", "-", ">", "", ".", "_").Replace(edge)
	height := dcTop + len(rows)*dcRowH + 24
	var b strings.Builder
	var desc []string
	fmt.Fprintf(&b, `<figure><svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-labelledby="%s-title %s-desc">`, dcWidth, height, dcWidth, height, id, id)
	fmt.Fprintf(&b, `<title id="%s-title">%s (runs of %s): seconds each backend was unreachable, per run, beside %s (basis, runs of %s)</title>`,
		id, e(edge), e(sampleDates), e(basis), e(basisDates))
	fmt.Fprintf(&b, `<rect x="%d" y="4" width="12" height="12" fill="%s"/><text x="%d" y="%d" class="small">%s</text>`, dcLeft, colorSample, dcLeft+18, dcLegend, e(edge))
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="small">runs of %s</text>`, dcLeft+18, dcLegend+13, e(sampleDates))
	fmt.Fprintf(&b, `<rect x="%d" y="4" width="12" height="12" fill="%s"/><text x="%d" y="%d" class="small">%s (basis)</text>`, dcLeft+200, colorBasis, dcLeft+218, dcLegend, e(basis))
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="small">runs of %s</text>`, dcLeft+218, dcLegend+13, e(basisDates))
	for i, r := range rows {
		y := dcTop + i*dcRowH
		fmt.Fprintf(&b, `<g><text x="0" y="%d" class="key">%s</text>`, y+14, e(middle(r.backend, 34)))
		word := "P95 not worse"
		if r.verdict == db.DisruptionWorse {
			word = "P95 " + assess.Secs(r.delta) + " worse"
		} else if r.verdict == db.DisruptionInsufficient {
			word = "too few runs"
		}
		fmt.Fprintf(&b, `<text x="0" y="%d" class="small">%s</text>`, y+30, e(word))
		for side, vals := range [][]float64{r.sample, r.basis} {
			sy := y + 4 + side*dcSideH
			color, label := colorSample, edge
			if side == 1 {
				color, label = colorBasis, basis
			}
			d := analyze.Distribute(vals)
			what := fmt.Sprintf("%s, %s: %s", r.backend, label, assess.SecondsWords(d))
			desc = append(desc, what+".")
			cy := float64(sy) + dcSideH/2
			fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%s" y2="%s" stroke="#e5e7eb"/>`, dcLeft, dcLeft+dcPlot, fx(cy), fx(cy))
			if d.Runs == 0 {
				fmt.Fprintf(&b, `<text x="%d" y="%s" class="small">no runs</text>`, dcLeft+4, fx(cy+4))
				continue
			}
			fmt.Fprintf(&b, `<g><title>%s</title>`, e(what))
			fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="10" fill="%s" opacity="0.35"/>`, x(d.Median), fx(cy-5), fx(math.Max((d.P95-d.Median)/top*dcPlot, 1.5)), color)
			fmt.Fprintf(&b, `<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="%s" stroke-width="3"/>`, x(d.Max), x(d.Max), fx(cy-8), fx(cy+8), color)
			// Equal values stack upwards a little, so that a pile of
			// zeros reads as a pile; a dot drawn where one of the same
			// colour already is would not show, and is left out: a side of
			// thousands of runs is a few hundred dots, the same picture.
			drawn := map[[2]string]bool{}
			k := 0
			for j, v := range d.Sorted() {
				if j > 0 && d.Sorted()[j-1] == v {
					if k++; k > 4 {
						continue // where the fifth of them is
					}
				} else {
					k = 0
				}
				at := [2]string{x(v), fx(cy - math.Min(float64(k), 4)*1.5)}
				if drawn[at] {
					continue
				}
				drawn[at] = true
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="%.1f" fill="%s"/>`, at[0], at[1], dcDotR, color)
			}
			b.WriteString(`</g>`)
		}
		b.WriteString(`</g>`)
	}
	axisY := dcTop + len(rows)*dcRowH
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&b, `<text x="%s" y="%d" class="small" text-anchor="middle">%s</text>`, x(f*top), axisY+12, e(assess.Secs(f*top)))
	}
	fmt.Fprintf(&b, `<desc id="%s-desc">%s Dots are runs; the light bar spans the median to the 95th percentile; the tick is the worst run.</desc>`, id, e(strings.Join(desc, " ")))
	b.WriteString(`</svg></figure>`)
	return template.HTML(b.String())
}

// niceTop rounds a chart's largest value up to 1, 2 or 5 times a power of
// ten.
func niceTop(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
