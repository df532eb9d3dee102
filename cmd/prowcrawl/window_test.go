package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/internal/safe"
)

// windowCounter counts in SQL, from the view of every run's population
// (v_run_populations, the one definition of a counted run), what a report
// of the runs started since a time counts: the counted runs of a symptom on
// one edge or variant, those of them showing it, or those left out because
// their upgrade never began.
type windowCounter struct {
	t     *testing.T
	conn  *sql.DB
	since string
}

func (w windowCounter) count(col, key, symptom string, shows, leftOut bool) int {
	w.t.Helper()
	cond := "p.population = 'counted'"
	switch {
	case leftOut:
		cond = "p.population = 'upgrade not started' AND p.in_reach AND p.evaluated"
	case shows:
		cond += " AND p.shows"
	}
	q := `SELECT count(*) FROM v_run_populations p WHERE p.symptom_id = ? AND p.` + col + ` = ? AND ` + cond +
		` AND p.started_at >= ? AND p.type IS NOT 'presubmit'`
	args := []any{symptom, key, w.since}
	var n int
	if err := w.conn.QueryRowContext(w.t.Context(), q, args...).Scan(&n); err != nil {
		w.t.Fatal(err)
	}
	return n
}

// disruption is each run's disruption of backend (its files summed) on
// edge, of the runs a report of the window counts (presubmits never count
// on an edge), with the starts of the first and last of those runs.
func (w windowCounter) disruption(edge, backend string) (secs []float64, first, last string) {
	w.t.Helper()
	rows, err := w.conn.QueryContext(w.t.Context(), `SELECT sum(d.disrupted_s), r.started_at
FROM runs r JOIN jobs j ON j.name = r.job JOIN run_disruptions d ON d.job = r.job AND d.build_id = r.build_id
WHERE r.edge = ? AND d.backend = ? AND r.result IN ('success', 'failure', 'error') AND r.upgrade_started IS NOT 0
	AND r.started_at >= ? AND j.type IS NOT 'presubmit'
GROUP BY r.job, r.build_id HAVING sum(d.disrupted_s) IS NOT NULL ORDER BY r.started_at`, edge, backend, w.since)
	if err != nil {
		w.t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s float64
		var at string
		if err := rows.Scan(&s, &at); err != nil {
			w.t.Fatal(err)
		}
		secs = append(secs, s)
		if first == "" {
			first = at
		}
		last = at
	}
	if err := rows.Err(); err != nil {
		w.t.Fatal(err)
	}
	return secs, first, last
}

// rateCell is a rate with its interval as the table, Markdown and HTML
// write it, from a JSON row's numbers.
func rateCell(row map[string]any, side string) string {
	if row[side+"_rate"] == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%% (%.1f-%.1f%%)", 100*row[side+"_rate"].(float64), 100*row[side+"_rate_low"].(float64), 100*row[side+"_rate_high"].(float64))
}

// TestReportSinceCounts: `report --since` on the demo's database, whose
// runs lie before and after the date: every number of every release
// comparison, in every format, is the count SQL makes of the runs since
// then; and `report --assess --since` says the same numbers.
func TestReportSinceCounts(t *testing.T) {
	dbPath := demoDB(t)
	const since = "2026-11-15"
	conn := openSQL(t, dbPath)
	w := windowCounter{t: t, conn: conn, since: since + "T00:00:00Z"}
	// The date cuts the edges: runs before it are not counted.
	const cross = "pod-network-cross-node"
	if all := (windowCounter{t: t, conn: conn, since: "2019-01-01T00:00:00Z"}); w.count("edge", "4.13->4.14 minor", cross, false, false) >= all.count("edge", "4.13->4.14 minor", cross, false, false) {
		t.Fatal("the demo has no 4.13->4.14 minor run before the date: the test would prove nothing")
	}
	for _, by := range []string{"edge", "variant"} {
		// --all: the table (every column) and Markdown show every row, to
		// be read beside the JSON's rows.
		args := []string{"--db", dbPath, "--since", since, "--by", by, "--min-runs", "1", "--all"}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(runReportCmd(t, append(args, "--format", "json")...)), &rows); err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 {
			t.Fatalf("no rows by %s", by)
		}
		table := runReportCmd(t, append(args, "--wide")...)
		md := runReportCmd(t, append(args, "--format", "markdown")...)
		page := filepath.Join(t.TempDir(), "report.html")
		runReportCmd(t, append(args, "--format", "html", "--out", page)...)
		html, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(table, "\n")[3:]
		for i, row := range rows {
			symptom, sample, basis := row["symptom_id"].(string), row["sample_label"].(string), row["basis_label"].(string)
			for _, c := range []struct {
				field          string
				key            string
				shows, leftOut bool
			}{
				{"sample_runs", sample, false, false}, {"sample_hits", sample, true, false}, {"sample_left_out", sample, false, true},
				{"basis_runs", basis, false, false}, {"basis_hits", basis, true, false}, {"basis_left_out", basis, false, true},
			} {
				if got, want := int(row[c.field].(float64)), w.count(by, c.key, symptom, c.shows, c.leftOut); got != want {
					t.Errorf("by %s, %s %s: %s %d, SQL counts %d", by, symptom, sample, c.field, got, want)
				}
			}
			sr, br := int(row["sample_runs"].(float64)), int(row["basis_runs"].(float64))
			sh, bh := int(row["sample_hits"].(float64)), int(row["basis_hits"].(float64))
			// The table's row i, the Markdown's and the HTML's say the same.
			fields := strings.Join(strings.Fields(lines[i]), " ")
			for _, want := range []string{fmt.Sprintf(" %d %d %s ", sr, sh, rateCell(row, "sample")), fmt.Sprintf(" %d %d %s ", br, bh, rateCell(row, "basis"))} {
				if !strings.Contains(fields, want) {
					t.Errorf("by %s, table row %d %q lacks %q", by, i, fields, want)
				}
			}
			mdRow := fmt.Sprintf("| %d | %d | %s |", sr, sh, rateCell(row, "sample"))
			// The page has the terminal table's columns: hits of runs, the rate.
			htmlRow := fmt.Sprintf(`<td class="n">%d/%d `, sh, sr)
			if !strings.Contains(md, mdRow) || !strings.Contains(string(html), htmlRow) {
				t.Errorf("by %s, %s %s: Markdown or HTML lack %q / %q", by, symptom, sample, mdRow, htmlRow)
			}
		}
	}

	// The assessment of the same window.
	var a assess.Assessment
	if err := json.Unmarshal([]byte(runReportCmd(t, "--db", dbPath, "--assess", "pod-network-cross-node", "--since", since, "--format", "json")), &a); err != nil {
		t.Fatal(err)
	}
	for _, s := range append(a.Impacted.Edges, a.Impacted.NotSeen...) {
		if s.FinishedRuns != w.count("edge", s.Key, cross, false, false) || s.RunsWith != w.count("edge", s.Key, cross, true, false) ||
			s.LeftOut != w.count("edge", s.Key, cross, false, true) {
			t.Errorf("who is impacted, %s: %d/%d (%d left out); SQL counts differ", s.Key, s.RunsWith, s.FinishedRuns, s.LeftOut)
		}
	}
	for _, f := range a.Regression.Edges {
		if f.SampleRuns != w.count("edge", f.SampleLabel, cross, false, false) || f.SampleHits != w.count("edge", f.SampleLabel, cross, true, false) ||
			f.BasisRuns != w.count("edge", f.BasisLabel, cross, false, false) || f.BasisHits != w.count("edge", f.BasisLabel, cross, true, false) {
			t.Errorf("is it a regression, %s: %d/%d against %d/%d; SQL counts differ", f.Key, f.SampleHits, f.SampleRuns, f.BasisHits, f.BasisRuns)
		}
		if f.Verdict == "regression" && !strings.Contains(a.Summary, fmt.Sprintf("(%d/%d", f.SampleHits, f.SampleRuns)) {
			t.Errorf("In short %q does not say the regression's %d/%d", a.Summary, f.SampleHits, f.SampleRuns)
		}
	}
	var finished, with int
	if err := conn.QueryRowContext(t.Context(), `SELECT count(*), coalesce(sum(shows), 0) FROM v_counted_runs
WHERE symptom_id = 'pod-network-cross-node' AND started_at >= ?`,
		w.since).Scan(&finished, &with); err != nil {
		t.Fatal(err)
	}
	if a.Impact.FinishedRuns != finished || a.Impact.RunsWith != with {
		t.Errorf("what is the impact: %d of %d runs; SQL counts %d of %d", a.Impact.RunsWith, a.Impact.FinishedRuns, with, finished)
	}
	for _, e := range a.Impact.Examples {
		if e.Started < since {
			t.Errorf("example %s started %s, before %s", e.URL, e.Started, since)
		}
	}
	text := strings.Join(strings.Fields(runReportCmd(t, "--db", dbPath, "--assess", "pod-network-cross-node", "--since", since)), " ")
	md := strings.Join(strings.Fields(runReportCmd(t, "--db", dbPath, "--assess", "pod-network-cross-node", "--since", since, "--format", "markdown")), " ")
	for _, s := range a.Impacted.Edges {
		if !strings.Contains(text, s.Text) {
			t.Errorf("the text assessment lacks %q", s.Text)
		}
	}

	// The disruption each edge showing it came with, against the same edge
	// one release earlier: counted for the window, every number (runs,
	// median, P95, worst, the dates of each side) the one SQL finds.
	if len(a.Impact.Disruption) == 0 {
		t.Fatal("the assessment shows no disruption: the test would prove nothing")
	}
	for _, b := range a.Impact.Disruption {
		compared := map[string]bool{}
		for _, c := range b.Release {
			compared[c.Edge] = true
			for _, side := range []struct {
				edge     string
				got      assess.Seconds
				from, to string
			}{{c.Edge, c.Sample, c.SampleFrom, c.SampleTo}, {c.Basis, c.BasisS, c.BasisFrom, c.BasisTo}} {
				secs, first, last := w.disruption(side.edge, b.Backend)
				want := analyze.Distribute(secs)
				if side.got.Runs != want.Runs || side.from != first || side.to != last || !sameSeconds(side.got.Median, want.Median) ||
					!sameSeconds(side.got.P95, want.P95) || !sameSeconds(side.got.Max, want.Max) {
					t.Errorf("disruption of %s on %s (%s against %s): %d runs %s..%s, median %v, P95 %v, worst %v; SQL finds %d runs %s..%s, %+v",
						b.Backend, side.edge, c.Edge, c.Basis, side.got.Runs, side.from, side.to, deref(side.got.Median), deref(side.got.P95),
						deref(side.got.Max), want.Runs, first, last, want)
				}
			}
			if want := fmt.Sprintf("%s (%d runs, %s..%s)", c.Edge, c.Sample.Runs, c.SampleFrom[:10], c.SampleTo[:10]); !strings.Contains(text, want) || !strings.Contains(md, safe.Markdown(want)) {
				t.Errorf("the text or Markdown assessment lacks the window of %s's disruption %q", b.Backend, want)
			}
		}
		// Every edge showing it that has a release earlier is compared.
		for _, s := range a.Impacted.Edges {
			if secs, _, _ := w.disruption(s.Key, b.Backend); len(secs) > 0 && !compared[s.Key] {
				t.Errorf("disruption of %s: %s shows the symptom and has %d runs with disruption, but is not compared with its basis", b.Backend, s.Key, len(secs))
			}
		}
	}

	// The HTML page's disruption charts: every side's runs and worst run
	// are those of the window.
	page := filepath.Join(t.TempDir(), "report.html")
	runReportCmd(t, "--db", dbPath, "--since", since, "--format", "html", "--out", page)
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	charts := regexp.MustCompile(`<title id="disruption-[^"]*-title">([^<]*) \(runs of ([0-9.-]+)\): seconds each backend was unreachable, per run, beside ([^<]*) \(basis, runs of ([0-9.-]+)\)</title>`).FindAllStringSubmatch(string(html), -1)
	if len(charts) == 0 {
		t.Fatal("the HTML page draws no disruption chart for the window")
	}
	sides := regexp.MustCompile(`([a-z0-9-]+), ([^,:]+): median [^,]*, P95 [^,]*, worst ([0-9.]+) s over (\d+) runs?\.`)
	for _, c := range charts {
		for _, side := range [][2]string{{c[1], c[2]}, {c[3], c[4]}} {
			edge := strings.ReplaceAll(side[0], "&gt;", ">")
			seen := 0
			for _, m := range sides.FindAllStringSubmatch(string(html), -1) {
				if strings.ReplaceAll(m[2], "&gt;", ">") != edge {
					continue
				}
				seen++
				secs, first, last := w.disruption(edge, m[1])
				want := analyze.Distribute(secs)
				if m[4] != fmt.Sprint(want.Runs) || m[3] != strings.TrimSuffix(secsText(want.Max), " s") || side[1] != first[:10]+".."+last[:10] {
					t.Errorf("HTML disruption of %s on %s: %s runs, worst %s s, runs of %s; SQL finds %d runs, worst %v, %s..%s", m[1], edge, m[4], m[3], side[1], want.Runs, want.Max, first, last)
				}
			}
			if seen == 0 {
				t.Errorf("the HTML chart of %s says no backend's numbers", edge)
			}
		}
	}
}

// sameSeconds says whether a JSON statistic (six significant digits) is v.
func sameSeconds(got *float64, v float64) bool {
	if got == nil {
		return math.IsNaN(v)
	}
	return math.Abs(*got-v) <= 1e-5*math.Max(1, math.Abs(v))
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// secsText is seconds as the report writes them: at most one decimal.
func secsText(s float64) string {
	return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", s), "0"), ".") + " s"
}
