package report

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/db"
)

// The charts' colours. The bars are told apart by lightness as well as hue,
// so that they read in grey and to colour-blind eyes; the verdicts are
// written out, never only coloured.
const (
	colorSample = "#1d4ed8"
	colorBasis  = "#9aa5b1"
)

// trendColors are the colours of the trend lines, one per edge, in order.
var trendColors = []string{"#7c3aed", "#ea580c", "#0d9488", "#db2777", "#65a30d", "#0891b2", "#92400e", "#475569"}

// verdictColor is the colour a verdict is written in.
func verdictColor(v string) string {
	switch v {
	case analyze.VerdictRegression:
		return "#b91c1c"
	case analyze.VerdictNew:
		return "#a16207"
	case analyze.VerdictImproved:
		return "#15803d"
	}
	return "#4b5563"
}

// Geometry of the bar chart, in pixels: a label column, then the bars, a
// value after each.
const (
	barWidth      = 600
	barLabelWidth = 224
	barPlotX      = 232
	barPlotWidth  = 200
	barTop        = 30
	barGroupH     = 54
	barHeight     = 16
	labelRunes    = 34
)

// barChart is a symptom's rate per scope key, the basis beside the sample.
type barChart struct {
	ID, Title, Desc string
	Width, Height   int
	SampleName      string
	BasisName       string
	Groups          []barGroup
	Ticks           []tick
	AxisY           int
	ColorSample     string
	ColorBasis      string
}

type barGroup struct {
	Y             int
	Key, Label    string // the full key, and as shown
	Against       string
	Verdict       string
	VerdictText   string
	VerdictColor  string
	P             string
	Sample, Basis bar
}

type bar struct {
	Y          int
	Width      string
	LabelX     string
	Label      string
	Title      string
	Missing    bool // no runs: no bar, the label says so
	LabelWidth int
	// LoX and HiX are the ends of the rate's 95 % interval.
	LoX, HiX string
}

type tick struct {
	X     string
	Label string
}

func fx(f float64) string { return fmt.Sprintf("%.1f", f) }

// labelWidth is a generous width in pixels of a label in the charts' 12 px
// sans-serif: 7 px a rune.
func labelWidth(s string) float64 { return 7 * float64(utf8.RuneCountInString(s)) }

func newBar(y int, hits, runs int, rate float64, what string) bar {
	b := bar{Y: y, Label: rateOf(hits, runs), Title: what + ": " + rateOf(hits, runs)}
	if runs == 0 || math.IsNaN(rate) {
		b.Missing = true
		b.Width = "0"
		b.LabelX = fx(barPlotX + 4)
		return b
	}
	lo, hi := analyze.Wilson(hits, runs)
	b.Title += ", " + assess.Interval(hits, runs)
	// The legend says the line is the 95 % interval: "CI 44-97%".
	b.Label += " " + strings.TrimPrefix(assess.Interval(hits, runs), "95% ")
	w := rate * barPlotWidth
	b.Width = fx(w)
	b.LoX, b.HiX = fx(barPlotX+lo*barPlotWidth), fx(barPlotX+hi*barPlotWidth)
	// After the interval's end, or as far right as the whole label fits.
	b.LabelX = fx(min(barPlotX+hi*barPlotWidth+6, barWidth-2-labelWidth(b.Label)))
	return b
}

// middle shortens s to n runes by cutting its middle, where job names and
// variants differ least.
func middle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := (n - 1) / 2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}

// barsOf draws the rows of one symptom that have a hit on either side;
// bounded is Selection.Bounded, for the reason of a row without a verdict.
func barsOf(symptom, title, scope string, rows []db.SymptomVerdict, bounded bool) (barChart, bool) {
	c := barChart{ID: "bars-" + symptom, Width: barWidth, ColorSample: colorSample, ColorBasis: colorBasis}
	c.SampleName, c.BasisName = "sample: this release", "basis: one release earlier"
	if scope == db.ScopeJob || scope == db.ScopePresubmit {
		c.SampleName, c.BasisName = "sample: the last days", "basis: the weeks before"
	}
	var desc []string
	for _, v := range rows {
		if v.Symptom != symptom || v.SampleHits+v.BasisHits == 0 {
			continue
		}
		y := barTop + len(c.Groups)*barGroupH
		g := barGroup{Y: y, Key: v.Key, Label: middle(v.Key, labelRunes),
			Against: middle("against "+v.BasisLabel, labelRunes+4), Verdict: v.Verdict, VerdictText: verdictShort(v),
			VerdictColor: verdictColor(v.Verdict), P: chartP(v.P),
			Sample: newBar(y+4, v.SampleHits, v.SampleRuns, v.SampleRate, v.SampleLabel),
			Basis:  newBar(y+4+barHeight+4, v.BasisHits, v.BasisRuns, v.BasisRate, v.BasisLabel)}
		if v.Comparison == db.CompareWindow {
			g.Against = v.SampleLabel
		}
		c.Groups = append(c.Groups, g)
		desc = append(desc, fmt.Sprintf("%s: %s, %s.", v.Key, releaseWordsShort(v), verdictText(v, bounded)))
	}
	if len(c.Groups) == 0 {
		return c, false
	}
	c.AxisY = barTop + len(c.Groups)*barGroupH
	for _, p := range []int{0, 25, 50, 75, 100} {
		c.Ticks = append(c.Ticks, tick{X: fx(barPlotX + float64(p)*barPlotWidth/100), Label: fmt.Sprintf("%d%%", p)})
	}
	c.Height = c.AxisY + 24
	c.Title = fmt.Sprintf("%s: rate of runs showing it, by %s, %s beside %s", title, scope, strings.TrimPrefix(c.SampleName, "sample: "), strings.TrimPrefix(c.BasisName, "basis: "))
	c.Desc = strings.Join(desc, " ")
	return c, true
}

// releaseWordsShort is a comparison in a few words, for a chart's
// description: "43% (6/14) against 0% (0/14) on 4.12->4.13 minor, p = 0.008".
func releaseWordsShort(v db.SymptomVerdict) string {
	return fmt.Sprintf("%s of runs (%s) against %s (%s) on %s, %s", rateOf(v.SampleHits, v.SampleRuns),
		assess.Interval(v.SampleHits, v.SampleRuns), rateOf(v.BasisHits, v.BasisRuns), assess.Interval(v.BasisHits, v.BasisRuns),
		v.BasisLabel, assess.PPhrase(v.P))
}

// Geometry of the trend chart.
const (
	trendWidth  = 600
	trendLeft   = 44
	trendRight  = 556
	trendTop    = 16
	trendBottom = 150
	trendWeeks  = 12 // at most, the newest
	trendLines  = 6  // edges drawn, at most
	legendTop   = 206
	legendRow   = 18
)

// trendChart is a symptom's weekly rate, one line per edge.
type trendChart struct {
	ID, Title, Desc string
	Width, Height   int
	Grid            []gridLine
	Weeks           []tick
	Series          []series
	Omitted         int // edges with runs that are not drawn
	// NotDrawn says which edges with runs the chart leaves out, and why.
	NotDrawn    string
	Marks       []mark
	Left, Right int
	Top, Bottom int
	LabelY      int
}

// mark is a vertical line on a trend at a regression's onset: its first
// bad payload's week.
type mark struct {
	X, Label, Title string
}

// onsetMarks are the found onsets of symptom's edge regressions, as marks
// to place: the time of each first bad payload, and what to say of it.
func onsetMarks(onsets map[string]analyze.Change, symptom string) []onsetMark {
	var out []onsetMark
	for _, o := range onsets {
		if o.Symptom == symptom && o.Scope == db.ScopeEdge && o.Found {
			out = append(out, onsetMark{at: o.AfterAt, edge: o.Key, title: assess.ChangeOf(&o).Text})
		}
	}
	slices.SortFunc(out, func(a, b onsetMark) int { return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.edge, b.edge)) })
	return out
}

type onsetMark struct {
	at          time.Time
	edge, title string
}

type gridLine struct {
	Y     string
	Label string
}

type series struct {
	Edge     string
	Color    string
	Segments []string // polyline points; a week without runs breaks the line
	Points   []point
	LegendX  int
	LegendY  int
}

type point struct {
	X, Y     string
	LoY, HiY string // the ends of the rate's 95 % interval
	R        string // the radius: a point on few runs is drawn small
	LabelY   string
	Runs     int
	Title    string
}

// mondays are the weeks the trends show: the newest trendWeeks up to the
// newest week with runs of any symptom, from the first of them with runs.
// The weekly rates are those of the page's runs, so no week before its
// --since has any.
func mondays(weekly map[string][]db.WeeklyRate) []time.Time {
	var newest time.Time
	seen := map[time.Time]bool{}
	for _, ws := range weekly {
		for _, w := range ws {
			for m := w.WeekStart; m.Before(lastMonday(w)) || m.Equal(lastMonday(w)); m = m.AddDate(0, 0, 7) {
				seen[m] = true
			}
			if lm := lastMonday(w); lm.After(newest) {
				newest = lm
			}
		}
	}
	if newest.IsZero() {
		return nil
	}
	var out []time.Time
	for i := trendWeeks - 1; i >= 0; i-- {
		m := newest.AddDate(0, 0, -7*i)
		if len(out) == 0 && !seen[m] {
			continue
		}
		out = append(out, m)
	}
	return out
}

// lastMonday is the Monday of the last week a point covers.
func lastMonday(w db.WeeklyRate) time.Time {
	if w.WeekEnd.After(w.WeekStart) {
		return w.WeekEnd.AddDate(0, 0, -7)
	}
	return w.WeekStart
}

// edgeColors gives every edge of weekly one colour of trendColors, the
// same in every chart of a page, in the order of the edges' names.
func edgeColors(weekly map[string][]db.WeeklyRate) map[string]string {
	seen := map[string]bool{}
	for _, ws := range weekly {
		for _, w := range ws {
			seen[w.Edge] = true
		}
	}
	colors := map[string]string{}
	for i, e := range slices.Sorted(maps.Keys(seen)) {
		colors[e] = trendColors[i%len(trendColors)]
	}
	return colors
}

// trendOf draws a symptom's weekly rates on weeks: the edges with the most
// runs showing it first, at most trendLines of them.
func trendOf(symptom, title string, weekly []db.WeeklyRate, weeks []time.Time, onsets []onsetMark, colors map[string]string) (trendChart, bool) {
	c := trendChart{ID: "trend-" + symptom, Width: trendWidth, Left: trendLeft, Right: trendRight,
		Top: trendTop, Bottom: trendBottom, LabelY: trendBottom + 20}
	if len(weeks) == 0 {
		return c, false
	}
	index := map[time.Time]int{}
	for i, m := range weeks {
		index[m] = i
	}
	type edgeWeeks struct {
		edge       string
		hits, runs int
		weeks      []db.WeeklyRate
	}
	byEdge := map[string]*edgeWeeks{}
	var edges []*edgeWeeks
	before := map[string]bool{} // edges with runs before the weeks drawn
	for _, w := range weekly {
		if _, ok := index[lastMonday(w)]; !ok {
			before[w.Edge] = true
			continue
		}
		e := byEdge[w.Edge]
		if e == nil {
			e = &edgeWeeks{edge: w.Edge}
			byEdge[w.Edge] = e
			edges = append(edges, e)
		}
		e.hits += w.Hits
		e.runs += w.Runs
		e.weeks = append(e.weeks, w)
	}
	if len(edges) == 0 {
		return c, false
	}
	slices.SortFunc(edges, func(a, b *edgeWeeks) int {
		return cmp.Or(-cmp.Compare(a.hits, b.hits), -cmp.Compare(a.runs, b.runs), cmp.Compare(a.edge, b.edge))
	})
	var notDrawn []string
	if len(edges) > trendLines {
		c.Omitted = len(edges) - trendLines
		for _, e := range edges[trendLines:] {
			notDrawn = append(notDrawn, e.edge)
		}
		edges = edges[:trendLines]
	}
	var early []string
	for _, e := range slices.Sorted(maps.Keys(before)) {
		if byEdge[e] == nil {
			early = append(early, e)
		}
	}
	switch {
	case len(notDrawn) > 0 && len(early) > 0:
		c.NotDrawn = fmt.Sprintf("Not drawn: %s (fewest runs showing it; at most %d lines); %s, whose runs are all before %s.",
			strings.Join(notDrawn, ", "), trendLines, strings.Join(early, ", "), weeks[0].Format(time.DateOnly))
	case len(notDrawn) > 0:
		c.NotDrawn = fmt.Sprintf("Not drawn: %s (fewest runs showing it; at most %d lines).", strings.Join(notDrawn, ", "), trendLines)
	case len(early) > 0:
		c.NotDrawn = fmt.Sprintf("Not drawn: %s, whose runs are all before %s, the first week shown.", strings.Join(early, ", "), weeks[0].Format(time.DateOnly))
	}
	step := float64(trendRight-trendLeft) / float64(max(len(weeks)-1, 1))
	xOf := func(i int) float64 { return trendLeft + step*float64(i) }
	if len(weeks) == 1 {
		xOf = func(int) float64 { return (trendLeft + trendRight) / 2 }
	}
	yOf := func(rate float64) float64 { return trendBottom - rate*(trendBottom-trendTop) }
	for _, p := range []int{0, 25, 50, 75, 100} {
		c.Grid = append(c.Grid, gridLine{Y: fx(yOf(float64(p) / 100)), Label: fmt.Sprintf("%d%%", p)})
	}
	every := 1
	if len(weeks) > 8 {
		every = 2
	}
	for i, m := range weeks {
		if (len(weeks)-1-i)%every == 0 {
			c.Weeks = append(c.Weeks, tick{X: fx(xOf(i)), Label: m.Format("Jan 2")})
		}
	}
	var desc []string
	// Lines at one rate would hide each other: each edge's line is moved
	// by a pixel or two (its points' titles keep the exact rates), and a
	// count of runs that would sit on another's is put above it.
	dodge := func(n int) float64 { return (float64(n) - float64(len(edges)-1)/2) * 2 }
	labels := map[string][]float64{} // x -> the label heights taken
	labelAt := func(x string, y float64) float64 {
		free := func(y float64) bool {
			for _, u := range labels[x] {
				if math.Abs(u-y) < 10 {
					return false
				}
			}
			return true
		}
		// Above the point first, then below it; never above the chart.
		at := max(y, 11)
		for _, step := range []float64{-10, 10} {
			for c := max(y, 11); c >= 11 && c <= trendBottom; c += step {
				if free(c) {
					at = c
					labels[x] = append(labels[x], at)
					return at
				}
			}
		}
		labels[x] = append(labels[x], at)
		return at
	}
	for n, e := range edges {
		s := series{Edge: e.edge, Color: cmp.Or(colors[e.edge], trendColors[n%len(trendColors)]),
			LegendX: trendLeft + (n%2)*270, LegendY: legendTop + (n/2)*legendRow}
		var seg []string
		last := -2
		var parts []string
		for _, w := range e.weeks {
			// A point of merged weeks stands in the middle of them.
			end := index[lastMonday(w)]
			first, ok := index[w.WeekStart]
			if !ok {
				first = 0
			}
			if first != last+1 && len(seg) > 0 {
				s.Segments = append(s.Segments, strings.Join(seg, " "))
				seg = nil
			}
			xf := (xOf(first) + xOf(end)) / 2
			x, y := fx(xf), fx(yOf(w.Rate)+dodge(n))
			lo, hi := analyze.Wilson(w.Hits, w.Runs)
			seg = append(seg, x+","+y)
			what := "week of " + w.WeekStart.Format(time.DateOnly)
			if end > first {
				what = fmt.Sprintf("%d weeks from %s merged (too few runs for one)", end-first+1, w.WeekStart.Format(time.DateOnly))
			}
			s.Points = append(s.Points, point{X: x, Y: y, LoY: fx(yOf(lo)), HiY: fx(yOf(hi)), Runs: w.Runs,
				R: fx(math.Min(5, 2.5+float64(w.Runs)/10)), LabelY: fx(labelAt(x, yOf(hi)-6)),
				Title: fmt.Sprintf("%s, %s (%s): %s, %s", e.edge, what, w.Week, rateOf(w.Hits, w.Runs), assess.Interval(w.Hits, w.Runs))})
			parts = append(parts, fmt.Sprintf("%s %s", w.Week, rateOf(w.Hits, w.Runs)))
			last = end
		}
		if len(seg) > 0 {
			s.Segments = append(s.Segments, strings.Join(seg, " "))
		}
		c.Series = append(c.Series, s)
		desc = append(desc, e.edge+": "+strings.Join(parts, ", ")+".")
	}
	// Drawn last, the edge with the most hits is on top.
	slices.Reverse(c.Series)
	for _, o := range onsets {
		monday := o.at.UTC().Truncate(24*time.Hour).AddDate(0, 0, -(int(o.at.UTC().Weekday())+6)%7)
		if i, ok := index[monday]; ok {
			c.Marks = append(c.Marks, mark{X: fx(xOf(i)), Label: "onset " + o.edge, Title: o.title})
			desc = append(desc, o.title)
		}
	}
	c.Height = legendTop + ((len(c.Series)+1)/2)*legendRow + 4
	c.Title = fmt.Sprintf("%s: weekly rate of runs showing it, per edge, %s to %s", title,
		weeks[0].Format(time.DateOnly), weeks[len(weeks)-1].Format(time.DateOnly))
	c.Desc = strings.Join(desc, " ")
	return c, true
}

// chartP is a p-value beside a verdict in a chart, nothing without one.
func chartP(p float64) string {
	if math.IsNaN(p) {
		return ""
	}
	return assess.PPhrase(p)
}
