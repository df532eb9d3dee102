package artifact

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/classify"
)

var builtin = func() *classify.Engine {
	e, err := classify.NewEngine(classify.Builtin())
	if err != nil {
		panic(err)
	}
	return e
}()

var t0 = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

const cniLine = `Nov 20 10:41:07.118 W ns/openshift-etcd pod/etcd-guard-ip-10-0-143-21 node/ip-10-0-143-21.ec2.internal reason/FailedCreatePodSandBox NetworkPluginNotReady message:Network plugin returns error: Missing CNI default network`

const junitE2E = `<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="openshift-tests" tests="2" skipped="0" failures="1" time="3120.4">
  <testcase name="[sig-network] pods should successfully create sandboxes by other" time="0"><failure message="1 failures to create the sandbox">` + cniLine + `</failure></testcase>
  <testcase name="[sig-cluster-lifecycle] Cluster version operator acknowledges upgrade" time="12.2"></testcase>
</testsuite>
`

func meta(result string) []File {
	return []File{
		Bytes("started.json", fmt.Appendf(nil, `{"timestamp":%d}`, t0.Unix())),
		Bytes("finished.json", fmt.Appendf(nil, `{"timestamp":%d,"passed":false,"result":%q}`, t0.Add(2*time.Hour).Unix(), result)),
	}
}

// aheadFunc is an Ahead that records what it is told.
type aheadFunc func(files []File)

func (f aheadFunc) ReadAhead(_ context.Context, files []File) func() {
	f(files)
	return func() {}
}

func names(files []File) string {
	var out []string
	for _, f := range files {
		out = append(out, f.Name())
	}
	return strings.Join(out, ",")
}

// TestEvidenceFollowsListing: the JUnit file is read first (for the
// tests) but listed after the build log holding the same line: the
// evidence is the build log's, as the listing orders them, and the object
// names recorded carry the run's directory.
func TestEvidenceFollowsListing(t *testing.T) {
	files := append(meta("FAILURE"),
		Bytes("build-log.txt", []byte("step e2e starting\n"+cniLine+"\n")),
		Bytes("artifacts/e2e/openshift-e2e-test/artifacts/junit/junit_e2e.xml", []byte(junitE2E)),
	)
	var told []string
	run := Run{Dir: "logs/job/1/", Files: files, Ahead: aheadFunc(func(f []File) { told = append(told, names(f)) })}
	res, err := Read(t.Context(), run, Options{Rules: builtin})
	if err != nil {
		t.Fatal(err)
	}
	if res.Run.Result != "failure" || !res.Run.StartedAt.Equal(t0) || len(res.Tests) != 2 || len(res.Errors) != 0 {
		t.Fatalf("run %+v, %d tests, errors %v", res.Run, len(res.Tests), res.Errors)
	}
	var cni bool
	for _, s := range res.Symptoms {
		if s.SymptomID == "cni-default-network-missing" {
			cni = true
			if s.File != "logs/job/1/build-log.txt" || s.Line != 2 || s.Hits != 2 {
				t.Errorf("evidence %s:%d, %d hits; want logs/job/1/build-log.txt:2, 2 hits", s.File, s.Line, s.Hits)
			}
		}
	}
	if !cni {
		t.Errorf("symptoms %+v: no cni-default-network-missing", res.Symptoms)
	}
	// A finished run wanted whatever its start is told its plan in one go.
	want := "started.json,finished.json,artifacts/e2e/openshift-e2e-test/artifacts/junit/junit_e2e.xml,build-log.txt"
	if len(told) != 1 || told[0] != want {
		t.Errorf("read ahead %q, want one plan %q", told, want)
	}

	// One that Keep must see first is told its metadata, then the rest.
	told = nil
	if _, err := Read(t.Context(), run, Options{Rules: builtin, Keep: func(time.Time) bool { return true }}); err != nil {
		t.Fatal(err)
	}
	if len(told) != 2 || told[0] != "started.json,finished.json" {
		t.Errorf("read ahead %q, want the metadata first", told)
	}
	told = nil
	if _, err := Read(t.Context(), run, Options{Rules: builtin, Keep: func(time.Time) bool { return false }}); !errors.Is(err, ErrNotKept) {
		t.Errorf("refused by Keep: %v, want ErrNotKept", err)
	}
	if len(told) != 1 {
		t.Errorf("a run not kept was told %q, want only its metadata", told)
	}
}

// TestLooseFiles: a JUnit or clusterversion.json file given on its own is
// read as one though it is not under artifacts/, and a truncated one
// reports its parse error.
func TestLooseFiles(t *testing.T) {
	cv := `{"apiVersion":"v1","kind":"List","items":[{"kind":"ClusterVersion","status":{"history":[
{"state":"Partial","version":"4.14.2","startedTime":"2026-11-20T10:20:00Z"},
{"state":"Completed","version":"4.13.20","startedTime":"2026-11-20T09:10:00Z","completionTime":"2026-11-20T09:50:00Z"}]}}]}`
	for _, tc := range []struct {
		name, file, content string
		tests               int
		upgrade             string
		problem             string
	}{
		{"junit", "junit_e2e.xml", junitE2E, 2, "", ""},
		{"truncated junit", "junit_e2e.xml", junitE2E[:len(junitE2E)/2], 0, "", "parse"},
		{"clusterversion", "clusterversion.json", cv, 0, "Partial", ""},
		{"truncated clusterversion", "clusterversion.json", cv[:40], 0, "", "parse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Read(t.Context(), Run{Files: []File{Bytes(tc.file, []byte(tc.content))}}, Options{Triage: true, Loose: true, Start: t0})
			if err != nil {
				t.Fatal(err)
			}
			var problem string
			for _, e := range res.Errors {
				problem = string(e.Kind)
				if e.Object != tc.file {
					t.Errorf("problem on %q, want %q", e.Object, tc.file)
				}
			}
			if len(res.Tests) < tc.tests || (tc.tests == 0 && tc.problem == "" && len(res.Tests) != 0) || res.Run.UpgradeState != tc.upgrade || problem != tc.problem {
				t.Errorf("%d tests, upgrade %q, problem %q; want %d, %q, %q", len(res.Tests), res.Run.UpgradeState, problem, tc.tests, tc.upgrade, tc.problem)
			}
		})
	}
}
