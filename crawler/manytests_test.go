package crawler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/mirror"
)

// TestRunTestsCapped: a run whose JUnit file holds more test cases than a
// run keeps (a cap of 500 here; 100,000 by default) is stored complete with
// the first 500 tests and every failure and flake past them, and a size
// problem on the file that `status` lists. Before, every case was held in
// memory and stored, whatever the file held: a million cases took 1.9 GB
// to crawl and 2.3 GB of database.
func TestRunTestsCapped(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	at := now.Add(-5 * time.Hour)
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<testsuite name="openshift-tests" tests="3000">` + "\n")
	for i := range 3000 {
		name := fmt.Sprintf("[sig-arch] case %04d [Suite:openshift/conformance/parallel]", i)
		if i%100 == 7 {
			fmt.Fprintf(&b, "<testcase name=%q time=\"2\"><failure message=\"fail [test.go:42]: timed out\">timed out waiting for the condition</failure></testcase>\n", name)
			if i%500 == 7 {
				fmt.Fprintf(&b, "<testcase name=%q time=\"1\"/>\n", name) // a flake, as origin writes it
			}
			continue
		}
		fmt.Fprintf(&b, "<testcase name=%q time=\"1\"/>\n", name)
	}
	b.WriteString("</testsuite>\n")
	dir := "logs/" + hostileJob + "/7/"
	junit := dir + "artifacts/e2e/openshift-e2e-test/artifacts/junit/junit_e2e_20261121-070000.xml"
	src, err := mirror.New(writeTree(t, map[string]string{
		dir + "started.json":  started(at),
		dir + "finished.json": finished(at.Add(time.Hour), "FAILURE"),
		junit:                 b.String(),
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	d := openDB(t)
	cfg := Config{Jobs: upgradeJobs, Since: now.Add(-24 * time.Hour), Now: func() time.Time { return now }, MaxTests: 500}
	if _, err := New(src, d, cfg).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	// 500 kept whatever their outcome (5 of them failed, one a flake), and
	// the 25 failures past them (5 of them flakes).
	if got := strings.Join(query(t, d, `SELECT status, count(*) FROM tests GROUP BY status ORDER BY status`), " "); got != "fail|24 flake|6 pass|495" {
		t.Errorf("tests stored by status: %s, want fail|24 flake|6 pass|495", got)
	}
	if got := query(t, d, `SELECT fetch_status FROM runs`); len(got) != 1 || got[0] != "complete" {
		t.Errorf("run %v, want complete: what is left out is left out by design, not unread", got)
	}
	_, problems, err := d.RunProblems(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || problems[0].Kind != "size" || problems[0].Object != junit ||
		!strings.Contains(problems[0].Message, "2475 cases of tests past the first 500 of the run left out") {
		t.Errorf("problems %+v, want a size problem on the JUnit file counting the 2475 passing cases left out", problems)
	}
}
