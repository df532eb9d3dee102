package artifact

import (
	"fmt"
	"strings"
	"testing"
)

// junitOf writes a JUnit file of cases given as "name" (passed) or
// "name!" (failed).
func junitOf(cases ...string) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<testsuite name="openshift-tests">` + "\n")
	for _, c := range cases {
		if name, failed := strings.CutSuffix(c, "!"); failed {
			fmt.Fprintf(&b, "<testcase name=%q time=\"2\"><failure message=\"fail [%s]\">timed out</failure></testcase>\n", name, name)
		} else {
			fmt.Fprintf(&b, "<testcase name=%q time=\"1\"/>\n", c)
		}
	}
	b.WriteString("</testsuite>\n")
	return []byte(b.String())
}

// TestTestsCapped: past the cap on a run's tests, the failures and flakes
// are kept (a flake whose passing case came first, before the cap was
// passed, included) and the passes are left out, with a size problem on
// the file where the cap was passed that says how many. Before, every
// case of every file was held and stored: a JUnit file of a million cases
// took 1.9 GB to read and 2.3 GB of database.
func TestTestsCapped(t *testing.T) {
	const limit = 100
	var one, two []string
	for i := range 150 {
		name := fmt.Sprintf("t%03d", i)
		switch i {
		case 10, 120:
			one = append(one, name+"!") // failures, before and past the cap
		case 20, 140:
			one = append(one, name+"!", name) // flakes as origin writes them: the pass after
		default:
			one = append(one, name)
		}
	}
	two = append(two, "t130!") // passed in the first file, past the cap: a flake
	for i := range 100 {
		two = append(two, fmt.Sprintf("u%03d", i))
	}
	two = append(two, "t010") // a pass of a failure kept before the cap: a flake
	dir := "artifacts/e2e/openshift-e2e-test/artifacts/junit/"
	run := Run{Dir: "logs/job/1/", Files: append(meta("FAILURE"),
		Bytes(dir+"junit_e2e_1.xml", junitOf(one...)), Bytes(dir+"junit_e2e_2.xml", junitOf(two...)))}
	res, err := Read(t.Context(), run, Options{MaxTests: limit})
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, tt := range res.Tests {
		status[tt.Name] = tt.Status
	}
	if len(res.Tests) != limit+3 {
		t.Errorf("%d tests kept, want the first %d and the 3 that failed past them", len(res.Tests), limit)
	}
	for name, want := range map[string]string{"t000": "pass", "t099": "pass", "t010": "flake", "t020": "flake",
		"t120": "fail", "t130": "flake", "t140": "flake", "t100": "", "t149": "", "u000": ""} {
		if status[name] != want {
			t.Errorf("%s: %q, want %q", name, status[name], want)
		}
	}
	if len(res.Errors) != 1 {
		t.Fatalf("problems %+v, want one size problem", res.Errors)
	}
	e := res.Errors[0]
	if e.Kind != "size" || e.Object != run.Dir+dir+"junit_e2e_1.xml" || res.Partial ||
		!strings.Contains(e.Message, "148 cases of tests past the first 100 of the run left out") {
		t.Errorf("problem %+v, want a size problem on the first file counting the 148 passing cases left out", e)
	}

	// Failures too are capped, at twice the cap: memory stays bounded
	// whatever a file holds, and the problem says how many were left out.
	var fails []string
	for i := range 30 {
		fails = append(fails, fmt.Sprintf("f%03d!", i))
	}
	run.Files = append(meta("FAILURE"), Bytes(dir+"junit_e2e_1.xml", junitOf(fails...)))
	res, err = Read(t.Context(), run, Options{MaxTests: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tests) != 20 || len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "10 of them failed, past 20 tests") {
		t.Errorf("%d tests, problems %+v; want 20 failures kept and 10 counted", len(res.Tests), res.Errors)
	}
}
