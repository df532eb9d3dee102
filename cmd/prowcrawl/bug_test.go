package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// bugJSON is the JSON contract of prowcrawl bug.
type bugJSON struct {
	Symptoms []struct {
		ID, Title, Source, Rule string
		Lines                   []string
		History                 *struct {
			Runs  int `json:"runs_with"`
			Edges []struct {
				Edge     string `json:"edge"`
				RunsWith int    `json:"runs_with"`
			} `json:"edges"`
			FirstSeen string `json:"first_seen"`
		}
	}
	Runs []struct {
		URL, Job  string
		BuildID   json.RawMessage `json:"build_id"`
		Edge      string
		ToVersion string `json:"to_version"`
		Symptoms  []string
	}
	Assessments []struct {
		SymptomID string `json:"symptom_id"`
		Summary   string `json:"summary"`
	}
}

func runBugJSON(t *testing.T, args ...string) bugJSON {
	t.Helper()
	out := runOK(t, append([]string{"bug", "--format", "json"}, args...)...)
	var doc bugJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("bug --format json: %v\n%s", err, out)
	}
	return doc
}

// TestBugSeed: bug on seed 002 against the demo database names its
// symptoms, reads its run from the cache (the link names origin-ci-test,
// the demo stored the run from its mirror) and assesses each symptom.
func TestBugSeed(t *testing.T) {
	dbPath := demoDB(t)
	seed := filepath.Join("..", "..", "bugreport", "testdata", "002_0a55aaa13493de37.txt")
	doc := runBugJSON(t, "--db", dbPath, seed)
	var ids []string
	for _, s := range doc.Symptoms {
		ids = append(ids, s.ID)
		if s.Source != "rule" || s.Title == "" || len(s.Lines) == 0 {
			t.Errorf("symptom %+v: want a rule's, with a title and lines", s)
		}
	}
	if want := []string{"cni-default-network-missing", "pod-network-cross-node", "sdn-rollout-readiness-loss"}; !slices.Equal(ids, want) {
		t.Errorf("symptoms %v, want %v", ids, want)
	}
	if len(doc.Runs) != 1 {
		t.Fatalf("runs %+v, want the linked one", doc.Runs)
	}
	r := doc.Runs[0]
	if string(r.BuildID) != `"14098"` || r.Job != "release-openshift-origin-installer-e2e-aws-upgrade" || r.Edge != "4.4 micro" ||
		!strings.HasPrefix(r.ToVersion, "4.4.0-0.nightly-") || !strings.Contains(r.URL, "/origin-ci-test/logs/") {
		t.Errorf("run %+v", r)
	}
	for _, id := range ids {
		if !slices.Contains(r.Symptoms, id) {
			t.Errorf("the run's symptoms %v lack %s", r.Symptoms, id)
		}
	}
	var assessed []string
	for _, a := range doc.Assessments {
		assessed = append(assessed, a.SymptomID)
		if a.Summary == "" {
			t.Errorf("assessment of %s has no summary", a.SymptomID)
		}
	}
	if !slices.Equal(assessed, ids) {
		t.Errorf("assessments of %v, want of %v", assessed, ids)
	}
	md := runOK(t, "bug", "--db", dbPath, "--format", "markdown", seed)
	for _, want := range []string{"## What the bug shows", "### UpgradeBlocker assessment: `pod-network-cross-node`", "#### Is this a regression?", "blocked-edges"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

// TestBugProposedHistory: lines no rule matches are proposed as a rule,
// whose history is counted from the demo's cache; seed 000's
// clusterversion dump gives its versions, and an edge the database has no
// run of gets the backfill command that fills it.
func TestBugProposedHistory(t *testing.T) {
	dbPath := demoDB(t)
	doc := runBugJSON(t, "--db", dbPath, filepath.Join("..", "..", "bugreport", "testdata", "mco_unmatched.txt"))
	if len(doc.Symptoms) != 1 || doc.Symptoms[0].Source != "proposed" || !strings.Contains(doc.Symptoms[0].Rule, "- id: proposed-") {
		t.Fatalf("symptoms %+v, want one proposed with its rule", doc.Symptoms)
	}
	h := doc.Symptoms[0].History
	if h == nil || h.Runs == 0 || len(h.Edges) == 0 || h.Edges[0].Edge != "4.13->4.14 minor" || h.FirstSeen == "" {
		t.Errorf("history %+v, want the demo's 4.13->4.14 runs that show machine-config degraded", h)
	}

	text := "From the cluster:\n\n$ oc get clusterversion -o yaml\napiVersion: v1\nitems:\n- kind: ClusterVersion\n  status:\n    history:\n" +
		"    - state: Partial\n      startedTime: \"2023-03-02T10:00:00Z\"\n      version: 4.12.0-0.nightly-2023-03-01-000000\n" +
		"    - state: Completed\n      version: 4.11.30\n"
	var stdout, stderr bytes.Buffer
	in := filepath.Join(t.TempDir(), "bug.txt")
	if err := os.WriteFile(in, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(t.Context(), []string{"bug", "--db", dbPath, in}, &stdout, &stderr); err != nil {
		t.Fatalf("bug: %v\n%s", err, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"Cluster version: 4.11.30 -> 4.12.0-0.nightly-2023-03-01-000000, history[0] Partial", "4.11->4.12 minor: prowcrawl backfill --bucket gs://test-platform-results --gcs-auth --job '4\\.12.*upgrade' --since 2023-02-16 --until 2023-03-09"} {
		if !strings.Contains(out, want) {
			t.Errorf("bug's text lacks %q:\n%s", want, out)
		}
	}
}
