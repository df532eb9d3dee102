package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/openshift-eng/prowcrawl/report"
)

// demoDB crawls the sample bucket as 'make demo' does (logging as JSON, at
// level info) and returns the path
// of a copy of the database, with its cache beside it, that the test may
// change. The crawl is made once for every test that asks.
func demoDB(t *testing.T) string {
	t.Helper()
	demoCrawl.once.Do(func() {
		if demoCrawl.dir, demoCrawl.err = os.MkdirTemp("", "prowcrawl-demo-"); demoCrawl.err != nil {
			return
		}
		var stdout, stderr bytes.Buffer
		demoCrawl.args = []string{"crawl", "--bucket", sampleBucket, "--db", filepath.Join(demoCrawl.dir, "prowcrawl.db"), "--since", "2019-01-01", "--presubmits",
			"--log-format", "json", "--log-level", "info"}
		if err := run(context.Background(), demoCrawl.args, &stdout, &stderr); err != nil {
			demoCrawl.err = fmt.Errorf("crawl: %v\n%s", err, stderr.String())
		}
		demoCrawl.stdout, demoCrawl.stderr = stdout.String(), stderr.String()
	})
	if demoCrawl.err != nil {
		t.Fatal(demoCrawl.err)
	}
	dir := t.TempDir()
	err := filepath.WalkDir(demoCrawl.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(demoCrawl.dir, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "prowcrawl.db")
}

// demoCrawl is the crawl demoDB makes once: its command line (logging as
// JSON at level info), what it printed, and the directory of its database.
var demoCrawl struct {
	once           sync.Once
	args           []string
	stdout, stderr string
	dir            string
	err            error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if demoCrawl.dir != "" {
		os.RemoveAll(demoCrawl.dir)
	}
	os.Exit(code)
}

func runReportCmd(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), append([]string{"report"}, args...), &stdout, &stderr); err != nil {
		t.Fatalf("report %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// TestReportCommand runs the report on the demo's database as a new user
// would: the planted regression of pod-network-cross-node on 4.13->4.14
// comes first, in every format.
func TestReportCommand(t *testing.T) {
	dbPath := demoDB(t)

	out := runReportCmd(t, "--db", dbPath)
	lines := strings.Split(out, "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[2], "SYMPTOM") {
		t.Fatalf("no table:\n%s", out)
	}
	// SYMPTOM EDGE(2) SAMPLE HITS/RUNS RATE (CI) BASIS HITS/RUNS RATE (CI) P VERDICT, in 120 columns.
	want := "pod-network-cross-node 4.13->4.14 minor 6/14 43% (21-67%) 0/14 0% (0-22%) 0.008 regression"
	if got := strings.Join(strings.Fields(lines[3]), " "); got != want {
		t.Errorf("first row %q\nwant      %q", got, want)
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > report.DefaultWidth {
			t.Errorf("a line of %d columns: %s", n, l)
		}
	}
	// --wide: every column.
	// SYMPTOM EDGE(2) COMPARISON SAMPLE(2) DATES RUNS HITS RATE (CI) LEFT-OUT BASIS(2) DATES RUNS HITS RATE (CI) LEFT-OUT P VERDICT
	wide := strings.Split(runReportCmd(t, "--db", dbPath, "--wide"), "\n")
	want = "pod-network-cross-node 4.13->4.14 minor release 4.13->4.14 minor 2026-11-10..2026-11-25 14 6 42.9% (21.4-67.4%) 1 " +
		"4.12->4.13 minor 2026-10-20..2026-11-26 14 0 0.0% (0.0-21.5%) 0 0.008 regression"
	if got := strings.Join(strings.Fields(wide[3]), " "); got != want {
		t.Errorf("first row of --wide %q\nwant      %q", got, want)
	}
	if strings.Contains(out, "\x1b[") {
		t.Error("colour written into a pipe")
	}

	var rows []map[string]any
	if err := json.Unmarshal([]byte(runReportCmd(t, "--db", dbPath, "--format", "json", "--by", "variant")), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 || rows[0]["verdict"] != "regression" || rows[0]["scope_key"] != "4.13->4.14 minor aws ovn amd64 ha" ||
		rows[0]["sample_hits"] != 6.0 || rows[0]["basis_runs"] != 14.0 {
		t.Errorf("first JSON row by variant %v", rows[0])
	}
	records, err := csv.NewReader(strings.NewReader(runReportCmd(t, "--db", dbPath, "--format", "csv", "--symptom", "etcd-connection-refused"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if records[0][0] != "symptom_id" || len(records) < 2 || records[1][0] != "etcd-connection-refused" || records[1][15] != "flake" {
		t.Errorf("CSV %q, want the etcd flake first", records[:min(2, len(records))])
	}
	if md := runReportCmd(t, "--db", dbPath, "--format", "markdown", "--by", "job", "--job", `4\.14.*aws-ovn`, "--min-runs", "1"); !strings.Contains(md, "| Symptom | Job |") ||
		!strings.Contains(md, "periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade") ||
		strings.Contains(md, "4.13-e2e-aws-sdn-upgrade") {
		t.Errorf("markdown by job for one job:\n%s", md)
	}

	html := filepath.Join(t.TempDir(), "report.html")
	if out := runReportCmd(t, "--db", dbPath, "--format", "html", "--out", html); out != "" {
		t.Errorf("--out wrote %q to stdout", out)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", `<svg xmlns="http://www.w3.org/2000/svg"`, `id="bars-pod-network-cross-node-title"`,
		`id="trend-pod-network-cross-node-title"`, "<polyline"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the HTML report lacks %s", want)
		}
	}
}

// TestReportAssess: the four questions, answered for the planted regression.
func TestReportAssess(t *testing.T) {
	dbPath := demoDB(t)
	out := runReportCmd(t, "--db", dbPath, "--assess", "pod-network-cross-node")
	for _, want := range []string{
		"1. Who is impacted?", "2. What is the impact?", "3. How involved is remediation?", "4. Is this a regression?",
		"4.13->4.14 minor aws ovn amd64 ha: 43% of finished runs (6/14, 95% CI 21-67%",
		"- Yes: 4.13->4.14 minor 43% (6/14, 95% CI 21-67%, 2026-11-10..2026-11-25; 1\n     left out) against 4.12->4.13 minor 0% (0/14, 95% CI 0-22%,\n     2026-10-20..2026-11-26), p = 0.008",
		"https://prow.ci.openshift.org/view/gs/",
		"a regression, not a flake",
		"   - Also seen in presubmits:\n     pull-ci-openshift-ovn-kubernetes-master-e2e-aws-ovn-upgrade (6 of 6 runs);",
		"- No basis to compare with: 4.13 micro-downgrade never ran (4.14\n     micro-downgrade 83% (5/6",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("assessment lacks %q:\n%s", want, out)
		}
	}
	md := runReportCmd(t, "--db", dbPath, "--assess", "pod-network-cross-node", "--format", "markdown")
	if !strings.Contains(md, "#### Is this a regression?") || !strings.Contains(md, "- Yes: 4.13-\\>4.14 minor 43% (6/14, 95% CI 21-67%, 2026-11-10..2026-11-25; 1 left out) against 4.12-\\>4.13 minor 0% (0/14, 95% CI 0-22%, 2026-10-20..2026-11-26), p = 0.008") {
		t.Errorf("markdown assessment:\n%s", md)
	}
	// In short: every edge where it is a regression or that shows it in most
	// runs, the highest rate first: 5 of 6 runs of the micro downgrade
	// before the regression of 4.13->4.14 (6 of 14).
	var p struct {
		Summary  string `json:"summary"`
		Impacted struct {
			Presubmits []struct {
				Key      string `json:"key"`
				Finished int    `json:"finished_runs"`
				With     int    `json:"runs_with"`
			} `json:"presubmits"`
			Edges []struct {
				Key string `json:"key"`
			} `json:"edges"`
		} `json:"who_is_impacted"`
		Impact struct {
			FinishedRuns int `json:"finished_runs"`
		} `json:"what_is_the_impact"`
		Regression struct {
			Onset struct {
				Edge       string   `json:"edge"`
				Found      bool     `json:"found"`
				LastClean  string   `json:"last_clean"`
				FirstBad   string   `json:"first_bad"`
				Interval   []string `json:"interval"`
				RunsBefore int      `json:"runs_before"`
				HitsBefore int      `json:"hits_before"`
				RunsAfter  int      `json:"runs_after"`
				HitsAfter  int      `json:"hits_after"`
				PValue     float64  `json:"p_value"`
				Changelog  struct {
					URL string `json:"url"`
				} `json:"changelog"`
			} `json:"onset"`
		} `json:"is_it_a_regression"`
	}
	if err := json.Unmarshal([]byte(runReportCmd(t, "--db", dbPath, "--assess", "pod-network-cross-node", "--format", "json")), &p); err != nil {
		t.Fatal(err)
	}
	wantSummary := "Most runs of 4.14 micro-downgrade show it: 83% (5/6, 95% CI 44-97%), with no basis to compare with: 4.13 micro-downgrade never ran; " +
		"a regression on 4.13->4.14 minor: 43% of runs (6/14, 95% CI 21-67%) against 0% (0/14, 95% CI 0-22%) on 4.12->4.13 minor, p = 0.008."
	if p.Summary != wantSummary {
		t.Errorf("in short:\n%s\nwant\n%s", p.Summary, wantSummary)
	}
	// The sample's regression began with the payload of Nov 18: none of
	// the 7 finished runs before it shows the symptom, 6 of the 7 from it on.
	o := p.Regression.Onset
	if !o.Found || o.Edge != "4.13->4.14 minor" || o.LastClean != "4.14.0-0.ci-2026-11-14-113555" || o.FirstBad != "4.14.0-0.ci-2026-11-18-181208" ||
		o.RunsBefore != 7 || o.HitsBefore != 0 || o.RunsAfter != 7 || o.HitsAfter != 6 || o.PValue >= 0.01 || len(o.Interval) != 3 {
		t.Errorf("onset %+v, want 0 of 7 runs up to 4.14.0-0.ci-2026-11-14-113555, 6 of 7 from 4.14.0-0.ci-2026-11-18-181208, 3 payloads between, p < 0.01", o)
	}
	if want := "from=" + o.LastClean + "&to=" + o.FirstBad; !strings.Contains(o.Changelog.URL, want) {
		t.Errorf("onset changelog %q, want one %s", o.Changelog.URL, want)
	}
	// The presubmit's runs are named, and counted in no edge and no impact.
	if len(p.Impacted.Presubmits) != 1 || p.Impacted.Presubmits[0].Key != "pull-ci-openshift-ovn-kubernetes-master-e2e-aws-ovn-upgrade" ||
		p.Impacted.Presubmits[0].Finished != 6 || p.Impacted.Presubmits[0].With != 6 {
		t.Errorf("presubmits %+v, want the ovn-kubernetes one, 6 of 6 runs", p.Impacted.Presubmits)
	}
	for _, e := range p.Impacted.Edges {
		if strings.HasPrefix(e.Key, "pull-") {
			t.Errorf("a presubmit among the edges: %s", e.Key)
		}
	}
	// The counted runs of the release scopes: 62, the 67 finished runs of
	// the releases' jobs less the single-node job's 5, out of the rule's
	// reach; no presubmit.
	counted := countRows(t, dbPath, `SELECT count(*) FROM v_counted_runs WHERE symptom_id = 'pod-network-cross-node'`)
	if p.Impact.FinishedRuns != counted || counted != 62 {
		t.Errorf("impact counts %d finished runs, the view %d; want 62", p.Impact.FinishedRuns, counted)
	}

	var a struct {
		Regression struct{ Answer string } `json:"is_it_a_regression"`
		Flake      struct{ Answer string } `json:"does_it_look_like_a_flake"`
	}
	if err := json.Unmarshal([]byte(runReportCmd(t, "--db", dbPath, "--assess", "etcd-connection-refused", "--format", "json")), &a); err != nil {
		t.Fatal(err)
	}
	if a.Regression.Answer != "no" || a.Flake.Answer != "yes" {
		t.Errorf("etcd-connection-refused: regression %q, flake %q; want no, yes", a.Regression.Answer, a.Flake.Answer)
	}
}

// TestReportMinRuns: rows with fewer counted sample runs than --min-runs
// are hidden from the table, and a footer counts them; the threshold is the
// verdicts' too, so a lower one decides rows that had too few runs; a row
// whose basis never ran says so.
func TestReportMinRuns(t *testing.T) {
	dbPath := demoDB(t)
	out := runReportCmd(t, "--db", dbPath, "--wide")
	if !strings.Contains(out, "\nHidden: 21 rows with fewer than 10 counted runs in the sample (") {
		t.Errorf("default table: no footer for the 21 rows of 4.14 micro-downgrade, 4.4 micro and 4.3->4.4 minor:\n%s", out)
	}
	for _, hidden := range []string{"4.14 micro-downgrade", "4.4 micro", "4.3->4.4 minor"} {
		if strings.Contains(out, "  "+hidden+"  ") {
			t.Errorf("default table shows %s, whose sample has fewer than 10 runs", hidden)
		}
	}
	want := "etcd-connection-refused 4.12->4.13 minor release 4.12->4.13 minor 2026-10-20..2026-11-26 14 3 21.4% (7.6-47.6%) 0 " +
		"4.11->4.12 minor - 0 0 - 0 - no basis (4.11->4.12 minor never ran)"
	found := false
	for line := range strings.Lines(out) {
		found = found || strings.Join(strings.Fields(line), " ") == want
	}
	if !found || strings.Contains(out, "not enough runs") {
		t.Errorf("want the row %q and no \"not enough runs\" (every basis shown has runs or never ran):\n%s", want, out)
	}
	if out := runReportCmd(t, "--db", dbPath, "--min-runs", "1"); strings.Contains(out, "counted runs in the sample (") {
		t.Errorf("--min-runs 1 hides rows:\n%s", out)
	}

	insufficient := func(args ...string) int {
		var rows []map[string]any
		if err := json.Unmarshal([]byte(runReportCmd(t, append([]string{"--db", dbPath, "--format", "json", "--by", "job"}, args...)...)), &rows); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range rows {
			if r["verdict"] == "insufficient" {
				n++
				if r["reason"] != "not enough runs" && !strings.HasPrefix(r["reason"].(string), "no basis (no counted run in ") {
					t.Errorf("reason %q", r["reason"])
				}
			} else if r["reason"] != "" {
				t.Errorf("a %s row with reason %q", r["verdict"], r["reason"])
			}
		}
		return n
	}
	if def, three := insufficient(), insufficient("--min-runs", "3"); three >= def {
		t.Errorf("--min-runs 3 leaves %d of %d job rows insufficient: the threshold did not reach the verdicts", three, def)
	}
}

// TestReportUsageErrors: mistakes exit 2 with one sentence; an unknown
// symptom lists the known ones.
func TestReportUsageErrors(t *testing.T) {
	dbPath := demoDB(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--assess", "pod-network"}, "unknown symptom \"pod-network\" (known: api-unavailable-during-upgrade, cni-default-network-missing, etcd-connection-refused, etcd-transport-closing, pod-network-cross-node, sdn-rollout-readiness-loss, upgrade-incomplete)"},
		{[]string{"--symptom", "nope"}, "unknown symptom \"nope\" (known: "},
		{[]string{"--by", "platform"}, `--by "platform": want edge, job, variant or presubmit`},
		{[]string{"--format", "pdf"}, `--format "pdf": want table, csv, json, markdown, html`},
		{[]string{"--assess", "pod-network-cross-node", "--format", "html"}, `--format with --assess "html": want table, json, markdown`},
		{[]string{"--assess", "pod-network-cross-node", "--symptom", "etcd-connection-refused"}, "name different symptoms"},
		{[]string{"--job", "("}, "not a valid regular expression"},
		{[]string{"--job", "no-such-job"}, `no job matches "no-such-job"`},
		{[]string{"--since", "someday"}, "--since"},
		{[]string{"--out", "/nonexistent/dir/r.html"}, "directory /nonexistent/dir does not exist"},
		{[]string{"extra"}, "takes no arguments"},
		{[]string{"--min-runs", "0"}, "--min-runs 0: a verdict needs at least 1 counted run"},
		{[]string{"--assess", "pod-network-cross-node", "--min-runs", "-3"}, "--min-runs -3: a verdict needs at least 1 counted run"},
		{[]string{"--changes", "--min-runs", "5"}, "--changes takes no --assess, --symptom, --job or --min-runs"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), append([]string{"report", "--db", dbPath}, tc.args...), &stdout, &stderr)
			if code := exitCode(err, &stderr); code != 2 {
				t.Fatalf("exit %d, want 2 (err %v)", code, err)
			}
			if got := strings.TrimSpace(stderr.String()); !strings.HasPrefix(got, "prowcrawl: ") || !strings.Contains(got, tc.want) || strings.Count(got, "\n") > 0 {
				t.Errorf("stderr %q, want one sentence containing %q", got, tc.want)
			}
		})
	}
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"report", "--db", filepath.Join(t.TempDir(), "none.db")}, &stdout, &stderr)
	if code := exitCode(err, &stderr); code != 2 || !strings.Contains(stderr.String(), "no database at") {
		t.Errorf("missing database: exit %d, %q", code, stderr.String())
	}
}
