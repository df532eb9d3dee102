package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// TestRuleAddedAfterCrawl: a rule added after the runs were crawled has
// read none of them. A crawl with it (which finds no new run) and its
// analysis count the stored runs as not classified yet, never as runs
// that do not show it; a reclassify from the cache evaluates them, and then
// the rule's true rate is counted.
func TestRuleAddedAfterCrawl(t *testing.T) {
	dir := t.TempDir()
	rules := filepath.Join(dir, "my-rules.yaml")
	if err := os.WriteFile(rules, []byte(userRules), 0o644); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(dir, "prowcrawl.db")
	common := withShortJob("--bucket", sampleBucket, "--since", "2019-01-01", "--presubmits", "--now", "2026-12-01")
	runOK(t, append([]string{"crawl", "--db", dbPath}, common...)...)
	finished := countRows(t, dbPath, `SELECT count(*) FROM runs WHERE result IN ('success', 'failure', 'error') AND upgrade_started IS NOT 0`)
	if finished == 0 {
		t.Fatal("the crawl stored no finished run")
	}

	// The nightly crawl with the new rule: nothing new to read.
	runOK(t, append([]string{"crawl", "--db", dbPath, "--rules", rules}, common...)...)
	sum := func(col string) int {
		return countRows(t, dbPath, `SELECT coalesce(sum(`+col+`), -1) FROM v_symptom_rates WHERE symptom = 'api-port-refused' AND scope IN ('job', 'presubmit')`)
	}
	if counted, showing, unread := sum("finished_runs"), sum("runs_with"), sum("not_classified"); counted != 0 || showing != 0 || unread != finished {
		t.Errorf("before reclassify, the new rule's counted, showing and not classified runs = %d, %d, %d; want 0, 0, %d", counted, showing, unread, finished)
	}
	if n := countRows(t, dbPath, `SELECT count(*) FROM symptom_verdicts WHERE symptom_id = 'api-port-refused'
		AND (sample_runs > 0 OR sample_unclassified = 0 OR verdict <> 'insufficient')`); n != 0 {
		t.Errorf("%d verdicts of the new rule count runs it never read", n)
	}
	if n := countRows(t, dbPath, `SELECT count(*) FROM symptom_verdicts WHERE symptom_id = 'api-port-refused'`); n == 0 {
		t.Error("no verdict of the new rule says that its runs are not classified yet")
	}
	// The report says so, and what to do.
	if out := runOK(t, "report", "--db", dbPath, "--symptom", "api-port-refused", "--by", "job"); !strings.Contains(out, "not classified yet (") ||
		!strings.Contains(out, "reclassify)") {
		t.Errorf("report of the new rule before reclassify does not say its runs are not classified yet:\n%s", out)
	}
	// The built-in rules read every run: none of theirs is left out.
	if n := countRows(t, dbPath, `SELECT count(*) FROM v_run_populations WHERE symptom_id <> 'api-port-refused' AND population = 'not classified yet'`); n != 0 {
		t.Errorf("%d runs not classified by a built-in rule", n)
	}

	runOK(t, "reclassify", "--db", dbPath, "--rules", rules, "--now", "2026-12-01")
	if counted, showing, unread := sum("finished_runs"), sum("runs_with"), sum("not_classified"); counted != finished || showing == 0 || unread != 0 {
		t.Errorf("after reclassify, the new rule's counted, showing and not classified runs = %d, %d, %d; want %d, some, 0", counted, showing, unread, finished)
	}
	if n := countRows(t, dbPath, `SELECT count(*) FROM symptom_verdicts WHERE symptom_id = 'api-port-refused' AND sample_unclassified > 0`); n != 0 {
		t.Errorf("%d verdicts still count runs not classified after reclassify", n)
	}
	if out := runOK(t, "report", "--db", dbPath, "--symptom", "api-port-refused", "--by", "job", "--min-runs", "1"); strings.Contains(out, "not classified yet") {
		t.Errorf("report of the new rule after reclassify still says not classified yet:\n%s", out)
	}
}

// TestStatusCountsAsTheView: status's runs showing each symptom, per job,
// are the counted runs of v_counted_runs (and of the presubmit scope) that
// show it, and status says what it counted.
func TestStatusCountsAsTheView(t *testing.T) {
	dbPath := demoDB(t)
	out := runOK(t, "status", "--db", dbPath, "--wide")
	if !strings.Contains(out, prowcrawl.CountedLine) {
		t.Errorf("status does not say what it counted:\n%s", out)
	}
	conn := openSQL(t, dbPath)
	rows, err := conn.QueryContext(t.Context(), `SELECT job, symptom_id, sum(shows), sum(shows AND result <> 'success')
FROM v_run_populations WHERE population = 'counted' GROUP BY 1, 2 HAVING sum(shows) > 0 ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var job, symptom string
		var runs, failed int
		if err := rows.Scan(&job, &symptom, &runs, &failed); err != nil {
			t.Fatal(err)
		}
		n++
		want := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(job) + ` +` + regexp.QuoteMeta(symptom) + ` +` + itoa(runs) + ` +` + itoa(failed) + `$`)
		if !want.MatchString(out) {
			t.Errorf("status lacks %s %s with %d runs, %d failed (the view's count)", job, symptom, runs, failed)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("the view counts no run showing a symptom: the test proves nothing")
	}
	// The left-out run of the 4.13->4.14 minor job shows the symptom: the
	// view and status leave it out, as the report does.
	if !regexp.MustCompile(`(?m)^periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade +pod-network-cross-node +6 +5$`).MatchString(out) {
		t.Errorf("status does not count 6 runs (5 failed) of pod-network-cross-node on the minor job:\n%s", out)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestSearchNoMatch: a pattern no cached run holds says so in one line,
// with no table of zeros under it.
func TestSearchNoMatch(t *testing.T) {
	out := runOK(t, "search", "--db", demoDB(t), "zzqq-no-run-says-this")
	if !strings.HasPrefix(out, "0 of ") || strings.Contains(out, "JOB  EDGE") || strings.Count(strings.TrimSpace(out), "\n") != 0 {
		t.Errorf("search with no match:\n%s", out)
	}
}

// TestSearchCountsAsTheView: search's runs of a job are the runs every
// rate counts (finished, upgrade begun; a pattern is in reach of every
// run and reads every cached one), not every stored run, and it says so.
func TestSearchCountsAsTheView(t *testing.T) {
	dbPath := demoDB(t)
	const job = "periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade"
	out := runOK(t, "search", "--db", dbPath, "i/o timeout", "--wide")
	if !strings.Contains(out, "Counted: the finished runs searched whose upgrade began, not infrastructure failures nor aggregated (1 left out: their upgrade never began)") {
		t.Errorf("search does not say what it counted:\n%s", out)
	}
	counted := countRows(t, dbPath, `SELECT count(*) FROM v_run_populations WHERE symptom_id = 'etcd-connection-refused' AND job = '`+job+`' AND population = 'counted'`)
	stored := countRows(t, dbPath, `SELECT count(*) FROM runs WHERE job = '`+job+`' AND result IN ('success', 'failure', 'error')`)
	if counted == stored {
		t.Fatal("every finished run of the job is counted: the test proves nothing")
	}
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(job) + ` +4\.13->4\.14 minor +` + itoa(counted) + ` `).MatchString(out) {
		t.Errorf("search does not count the job's %d counted runs:\n%s", counted, out)
	}
}

// TestAnalyzeNowBounded: an end of the sample window before every stored
// run, or days after the clock, would empty every window: a usage error
// (exit 2, one sentence), and nothing stored changes.
func TestAnalyzeNowBounded(t *testing.T) {
	dbPath := demoDB(t)
	before := countRows(t, dbPath, `SELECT count(*) FROM symptom_verdicts`)
	for _, now := range []string{"1900-01-01", time.Now().AddDate(0, 0, 3).Format(time.DateOnly)} {
		var stdout, stderr strings.Builder
		err := run(t.Context(), []string{"analyze", "--db", dbPath, "--now", now}, &stdout, &stderr)
		if code := exitCode(err, &stderr); code != 2 || strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 || !strings.Contains(stderr.String(), "now ") {
			t.Errorf("analyze --now %s: exit %d, %q; want 2 and one sentence", now, code, stderr.String())
		}
	}
	if after := countRows(t, dbPath, `SELECT count(*) FROM symptom_verdicts`); after != before || before == 0 {
		t.Errorf("verdicts %d, then %d: a refused analysis changed them", before, after)
	}
	runOK(t, "analyze", "--db", dbPath, "--now", "2026-12-01")
}
