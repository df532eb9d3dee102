package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/internal/testutil"
)

func load(t *testing.T, d *db.DB, q analyze.TableQuery) analyze.Table {
	t.Helper()
	data, err := analyze.LoadTable(t.Context(), d, q)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestGolden renders the fixture in every format.
func TestGolden(t *testing.T) {
	d := openFixture(t)
	tests := []struct {
		name   string
		q      analyze.TableQuery
		format string
		opts   Options
	}{
		{"table_edge.txt", analyze.TableQuery{}, FormatTable, Options{}},
		{"table_job.txt", analyze.TableQuery{By: db.ScopeJob}, FormatTable, Options{}},
		{"table_variant.txt", analyze.TableQuery{By: db.ScopeVariant}, FormatTable, Options{}},
		{"table_pod-network-aws.txt", analyze.TableQuery{Selection: analyze.Selection{Job: regexp.MustCompile(`4\.14-upgrade-from-stable-4\.13-e2e-aws`)}, Symptom: "pod-network-cross-node", By: db.ScopeVariant}, FormatTable, Options{}},
		{"edge.csv", analyze.TableQuery{}, FormatCSV, Options{}},
		{"edge.json", analyze.TableQuery{}, FormatJSON, Options{}},
		{"edge.md", analyze.TableQuery{}, FormatMarkdown, Options{}},
		{"edge.html", analyze.TableQuery{Trend: true}, FormatHTML, Options{}},
		{"table_edge_min-runs-5.txt", analyze.TableQuery{Selection: analyze.Selection{Options: minRuns(5)}}, FormatTable, Options{}},
		{"edge_min-runs-5.md", analyze.TableQuery{Selection: analyze.Selection{Options: minRuns(5)}}, FormatMarkdown, Options{}},
		{"job.html", analyze.TableQuery{By: db.ScopeJob, Trend: true}, FormatHTML, Options{}},
		{"table_edge_wide_all.txt", analyze.TableQuery{}, FormatTable, Options{Wide: true, All: true}},
		{"table_variant_80.txt", analyze.TableQuery{By: db.ScopeVariant}, FormatTable, Options{Width: 80}},
		{"edge_all.md", analyze.TableQuery{}, FormatMarkdown, Options{All: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, load(t, d, tc.q), tc.format, tc.opts); err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, "./report", tc.name, b.Bytes())
		})
	}
	for _, s := range fixtureSymptoms {
		for _, f := range []struct{ format, ext string }{{FormatTable, "txt"}, {FormatMarkdown, "md"}, {FormatJSON, "json"}} {
			if f.format != FormatTable && s.ID != "pod-network-cross-node" {
				continue
			}
			name := "assess_" + s.ID + "." + f.ext
			t.Run(name, func(t *testing.T) {
				in, err := analyze.LoadSymptom(t.Context(), d, s.ID, analyze.Selection{})
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if err := WriteAssessment(&b, assess.Assess(in), f.format); err != nil {
					t.Fatal(err)
				}
				testutil.Golden(t, "./report", name, b.Bytes())
			})
		}
	}
}

// TestTableOrder: regressions first, then new, persistent, flake,
// improved, none, insufficient.
func TestTableOrder(t *testing.T) {
	data := load(t, openFixture(t), analyze.TableQuery{})
	last := -1
	for _, v := range data.Rows {
		r := analyze.VerdictRank(v.Verdict)
		if r < last {
			t.Fatalf("%s %s (%s) after a %s row", v.Symptom, v.Key, v.Verdict, analyze.VerdictOrder[last])
		}
		last = r
		if v.Scope != db.ScopeEdge || v.Comparison != db.CompareRelease {
			t.Errorf("row %s %s %s in a report by edge", v.Scope, v.Key, v.Comparison)
		}
	}
	if data.Rows[0].Symptom != "pod-network-cross-node" || data.Rows[0].Verdict != analyze.VerdictRegression {
		t.Errorf("first row %+v, want the pod-network regression", data.Rows[0])
	}
}

// TestTableColor: colour marks regressions red, new yellow and
// improvements green, and only when asked; alignment does not change.
func TestTableColor(t *testing.T) {
	data := load(t, openFixture(t), analyze.TableQuery{})
	var plain, color bytes.Buffer
	if err := WriteTable(&plain, data, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteTable(&color, data, Options{Color: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b") {
		t.Error("escape codes without Color")
	}
	stripped := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(color.String(), "")
	if stripped != plain.String() {
		t.Errorf("coloured table differs from the plain one beyond the escapes:\n%s", color.String())
	}
	for verdict, code := range map[string]string{analyze.VerdictRegression: ansiRed, analyze.VerdictNew: ansiYellow, analyze.VerdictImproved: ansiGreen} {
		found := false
		for line := range strings.Lines(color.String()) {
			if strings.HasSuffix(strings.TrimSpace(line), verdict+ansiReset) {
				found = true
				if !strings.HasPrefix(line, code) {
					t.Errorf("%s row not in its colour: %q", verdict, line)
				}
			}
		}
		if !found {
			t.Errorf("no coloured %s row", verdict)
		}
	}
}

// TestMachineFormats: CSV, JSON and the table hold the same rows.
func TestMachineFormats(t *testing.T) {
	data := load(t, openFixture(t), analyze.TableQuery{})
	var c, j bytes.Buffer
	if err := WriteCSV(&c, data); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&j, data); err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(j.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	if len(records) != len(data.Rows)+1 || len(rows) != len(data.Rows) {
		t.Fatalf("%d CSV records and %d JSON rows for %d rows", len(records), len(rows), len(data.Rows))
	}
	for i, name := range records[0] {
		if _, ok := rows[0][name]; !ok {
			t.Errorf("CSV column %q is not a JSON field", name)
		}
		if got := records[1][i]; name == "verdict" && got != "regression" {
			t.Errorf("first CSV row's verdict %q", got)
		}
	}
	if len(records[0]) != len(rows[0]) {
		t.Errorf("%d CSV columns, %d JSON fields", len(records[0]), len(rows[0]))
	}
	var empty bytes.Buffer
	if err := WriteJSON(&empty, analyze.Table{}); err != nil || strings.TrimSpace(empty.String()) != "[\n]" {
		t.Errorf("no rows: %q, %v; want an empty array", empty.String(), err)
	}
}

// TestAssessAnswers: the fixture's symptoms get the answers their planted
// rates call for.
func TestAssessAnswers(t *testing.T) {
	d := openFixture(t)
	tests := []struct {
		symptom                string
		regression, flake      string
		summary                string
		block                  []string
		impactedFirst, example string
	}{
		{"pod-network-cross-node", assess.AnswerYes, assess.AnswerNo, "A regression on 4.13->4.14 minor: 29% of runs (7/24, 95% CI 15-49%) against 0% (0/24, 95% CI 0-14%) on 4.12->4.13 minor, p = 0.0047.",
			[]string{"4.13->4.14 minor"}, "4.13->4.14 minor: 29% of finished runs (7/24, 95% CI 15-49%, 2026-10-28..2026-11-29)", "failure"},
		{"etcd-connection-refused", assess.AnswerNo, assess.AnswerYes, "A flake: intermittent, and not significantly more frequent than one release earlier (p = 0.64 on 4.13->4.14 minor); not a regression.",
			[]string{}, "4.12->4.13 minor: 21% of finished runs (5/24, 95% CI 9-40%, 2026-10-22..2026-11-29)", "failure"},
		{"etcd-transport-closing", assess.AnswerNo, assess.AnswerNo, "Most runs of 4.14 micro show it: 95% (19/20, 95% CI 76-99%), not significantly more than 90% on 4.13 micro (18/20, p = 0.5): persistent; " +
			"most runs of 4.13 micro show it: 90% (18/20, 95% CI 70-97%), with no basis to compare with: 4.12 micro never ran. Persistent: nearly every run shows it, as one release earlier; not a regression.",
			[]string{}, "4.14 micro: 95% of finished runs (19/20, 95% CI 76-99%, 2026-10-27..2026-11-30); seen only in periodic-ci-openshift-release-master-nightly-4.14-e2e-aws-sdn-upgrade", "failure"},
		{"cni-default-network-missing", assess.AnswerNo, assess.AnswerYes, "", []string{},
			"4.13 micro: 45% of finished runs (9/20, 95% CI 26-66%, 2026-10-04..2026-11-27); seen only in periodic-ci-openshift-release-master-nightly-4.13-e2e-aws-sdn-upgrade", "failure"},
		{"sdn-rollout-readiness-loss", assess.AnswerWatch, assess.AnswerUnknown, "", []string{},
			"4.14 micro: 10% of finished runs (2/20, 95% CI 3-30%, 2026-10-27..2026-11-30); seen only in periodic-ci-openshift-release-master-nightly-4.14-e2e-aws-sdn-upgrade", "failure"},
		{"api-unavailable-during-upgrade", assess.AnswerUnknown, assess.AnswerUnknown, "Not enough runs to say whether it is a regression.",
			[]string{}, "4.11->4.12 minor: 17% of finished runs (1/6, 95% CI 3-56%, 2026-09-26..2026-10-21; too few runs to rely on); seen only in periodic-ci-openshift-release-master-ci-4.12-upgrade-from-stable-4.11-e2e-aws-ovn-upgrade", "failure"},
	}
	for _, tc := range tests {
		t.Run(tc.symptom, func(t *testing.T) {
			in, err := analyze.LoadSymptom(t.Context(), d, tc.symptom, analyze.Selection{})
			if err != nil {
				t.Fatal(err)
			}
			a := assess.Assess(in)
			if a.Regression.Answer != tc.regression || a.Flake.Answer != tc.flake {
				t.Errorf("regression %q, flake %q; want %q, %q", a.Regression.Answer, a.Flake.Answer, tc.regression, tc.flake)
			}
			if tc.summary != "" && a.Summary != tc.summary {
				t.Errorf("summary %q\nwant    %q", a.Summary, tc.summary)
			}
			if strings.Join(a.Impacted.Block, ",") != strings.Join(tc.block, ",") {
				t.Errorf("edges to block %q, want %q", a.Impacted.Block, tc.block)
			}
			if len(a.Impacted.Edges) == 0 || a.Impacted.Edges[0].Text != tc.impactedFirst {
				t.Errorf("most impacted %+v, want %q", a.Impacted.Edges, tc.impactedFirst)
			}
			if len(a.Impact.Examples) == 0 || a.Impact.Examples[0].Result != tc.example ||
				!strings.HasPrefix(a.Impact.Examples[0].URL, "https://prow.ci.openshift.org/view/gs/") {
				t.Errorf("examples %+v, want a %s run with its link first", a.Impact.Examples, tc.example)
			}
		})
	}
}

// TestLoadErrors: an unknown symptom names the known ones; a job pattern
// that matches nothing says so.
func TestLoadErrors(t *testing.T) {
	d := openFixture(t)
	_, err := analyze.LoadTable(t.Context(), d, analyze.TableQuery{Symptom: "pod-network"})
	if err == nil || !strings.Contains(err.Error(), "known: api-unavailable-during-upgrade, cni-default-network-missing") {
		t.Errorf("unknown symptom: %v", err)
	}
	_, err = analyze.LoadSymptom(t.Context(), d, "nope", analyze.Selection{})
	if err == nil || !strings.Contains(err.Error(), "pod-network-cross-node") {
		t.Errorf("unknown symptom to assess: %v", err)
	}
	_, err = analyze.LoadTable(t.Context(), d, analyze.TableQuery{Selection: analyze.Selection{Job: regexp.MustCompile("no-such-job")}})
	if err == nil || !strings.Contains(err.Error(), `no job matches "no-such-job"`) {
		t.Errorf("no job: %v", err)
	}
}

// TestWrap keeps a p-value and an edge on one line, and lines short.
func TestWrap(t *testing.T) {
	got := wrap("Yes: 4.13->4.14 minor 43% (6/14) against 4.12->4.13 minor 0% (0/14), p = 0.008", "   - ", "     ", 40)
	want := "   - Yes: 4.13->4.14 minor 43% (6/14)\n     against 4.12->4.13 minor 0% (0/14),\n     p = 0.008"
	if got != want {
		t.Errorf("wrap:\n%s\nwant:\n%s", got, want)
	}
}
