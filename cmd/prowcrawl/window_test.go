package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshift-eng/prowcrawl/report"
)

// windowCounter counts in SQL, straight from the runs, what a report of
// the runs started since a time counts: finished runs whose upgrade began,
// of one edge or variant, and those of them showing a symptom.
type windowCounter struct {
	t     *testing.T
	conn  *sql.DB
	since string
}

func (w windowCounter) count(col, key, symptom string, leftOut bool) int {
	w.t.Helper()
	started := "r.upgrade_started IS NOT 0"
	if leftOut {
		started = "r.upgrade_started = 0"
	}
	q := `SELECT count(*) FROM runs r WHERE r.` + col + ` = ? AND r.result IN ('success', 'failure', 'error') AND ` + started +
		` AND r.started_at >= ?`
	args := []any{key, w.since}
	if symptom != "" {
		q += ` AND EXISTS (SELECT 1 FROM run_symptoms s WHERE s.job = r.job AND s.build_id = r.build_id AND s.symptom_id = ?)`
		args = append(args, symptom)
	}
	var n int
	if err := w.conn.QueryRowContext(w.t.Context(), q, args...).Scan(&n); err != nil {
		w.t.Fatal(err)
	}
	return n
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
	if all := (windowCounter{t: t, conn: conn, since: "2019-01-01T00:00:00Z"}); w.count("edge", "4.13->4.14 minor", "", false) >= all.count("edge", "4.13->4.14 minor", "", false) {
		t.Fatal("the demo has no 4.13->4.14 minor run before the date: the test would prove nothing")
	}
	for _, by := range []string{"edge", "variant"} {
		var rows []map[string]any
		if err := json.Unmarshal([]byte(runReportCmd(t, "--db", dbPath, "--since", since, "--by", by, "--format", "json")), &rows); err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 {
			t.Fatalf("no rows by %s", by)
		}
		table := runReportCmd(t, "--db", dbPath, "--since", since, "--by", by)
		md := runReportCmd(t, "--db", dbPath, "--since", since, "--by", by, "--format", "markdown")
		page := filepath.Join(t.TempDir(), "report.html")
		runReportCmd(t, "--db", dbPath, "--since", since, "--by", by, "--format", "html", "--out", page)
		html, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(table, "\n")[3:]
		for i, row := range rows {
			symptom, sample, basis := row["symptom_id"].(string), row["sample_label"].(string), row["basis_label"].(string)
			for _, c := range []struct {
				field       string
				key, symbol string
				leftOut     bool
			}{
				{"sample_runs", sample, "", false}, {"sample_hits", sample, symptom, false}, {"sample_left_out", sample, "", true},
				{"basis_runs", basis, "", false}, {"basis_hits", basis, symptom, false}, {"basis_left_out", basis, "", true},
			} {
				if got, want := int(row[c.field].(float64)), w.count(by, c.key, c.symbol, c.leftOut); got != want {
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
			htmlRow := fmt.Sprintf(`<td class="n">%d</td><td class="n">%d</td><td class="n">%s</td>`, sr, sh, rateCell(row, "sample"))
			if !strings.Contains(md, mdRow) || !strings.Contains(string(html), htmlRow) {
				t.Errorf("by %s, %s %s: Markdown or HTML lack %q / %q", by, symptom, sample, mdRow, htmlRow)
			}
		}
	}

	// The assessment of the same window.
	var a report.Assessment
	if err := json.Unmarshal([]byte(runReportCmd(t, "--db", dbPath, "--assess", "pod-network-cross-node", "--since", since, "--format", "json")), &a); err != nil {
		t.Fatal(err)
	}
	for _, s := range append(a.Impacted.Edges, a.Impacted.NotSeen...) {
		if s.FinishedRuns != w.count("edge", s.Key, "", false) || s.RunsWith != w.count("edge", s.Key, "pod-network-cross-node", false) ||
			s.LeftOut != w.count("edge", s.Key, "", true) {
			t.Errorf("who is impacted, %s: %d/%d (%d left out); SQL counts differ", s.Key, s.RunsWith, s.FinishedRuns, s.LeftOut)
		}
	}
	for _, f := range a.Regression.Edges {
		if f.SampleRuns != w.count("edge", f.Sample, "", false) || f.SampleHits != w.count("edge", f.Sample, "pod-network-cross-node", false) ||
			f.BasisRuns != w.count("edge", f.Basis, "", false) || f.BasisHits != w.count("edge", f.Basis, "pod-network-cross-node", false) {
			t.Errorf("is it a regression, %s: %d/%d against %d/%d; SQL counts differ", f.Key, f.SampleHits, f.SampleRuns, f.BasisHits, f.BasisRuns)
		}
		if f.Verdict == "regression" && !strings.Contains(a.Summary, fmt.Sprintf("(%d/%d", f.SampleHits, f.SampleRuns)) {
			t.Errorf("In short %q does not say the regression's %d/%d", a.Summary, f.SampleHits, f.SampleRuns)
		}
	}
	var finished, with int
	if err := conn.QueryRowContext(t.Context(), `SELECT count(*), count(s.symptom_id) FROM runs r JOIN jobs j ON j.name = r.job
LEFT JOIN run_symptoms s ON s.job = r.job AND s.build_id = r.build_id AND s.symptom_id = 'pod-network-cross-node'
WHERE r.result IN ('success', 'failure', 'error') AND r.upgrade_started IS NOT 0 AND r.started_at >= ? AND j.type IS NOT 'presubmit'`,
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
	text := runReportCmd(t, "--db", dbPath, "--assess", "pod-network-cross-node", "--since", since)
	for _, s := range a.Impacted.Edges {
		if !strings.Contains(strings.Join(strings.Fields(text), " "), s.Text) {
			t.Errorf("the text assessment lacks %q", s.Text)
		}
	}
}
