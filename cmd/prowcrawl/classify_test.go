package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // the test reads the database as an analyst would
)

const userRules = `symptoms:
  - id: api-port-refused
    title: kube-apiserver port refused connections
    files: ["artifacts/*/openshift-e2e-test/build-log.txt", "build-log.txt"]
    match:
      - lines:
          any: ['dial tcp [0-9.]+:6443: connect: connection refused']
`

func countRows(t *testing.T, dbPath, q string) int {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n int
	if err := raw.QueryRowContext(t.Context(), q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestUserRulesAfterRefetch: a new symptom in a rules file reaches
// run_symptoms of stored runs through backfill --refetch.
func TestUserRulesAfterRefetch(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "prowcrawl.db")
	rules := filepath.Join(dir, "rules.yaml")
	if err := os.WriteFile(rules, []byte(userRules), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	base := withShortJob("--bucket", sampleBucket, "--db", dbPath, "--since", "2019-01-01")
	if err := run(t.Context(), append([]string{"crawl"}, base...), &stdout, &stderr); err != nil {
		t.Fatalf("crawl: %v %s", err, stderr.String())
	}
	if n := countRows(t, dbPath, `SELECT count(*) FROM run_symptoms WHERE symptom_id = 'pod-network-cross-node'`); n == 0 {
		t.Fatal("the built-in rules found no pod-network-cross-node in the sample bucket")
	}
	// Stored runs are not read again by a crawl, with or without new rules.
	if err := run(t.Context(), append([]string{"crawl", "--rules", rules}, base...), &stdout, &stderr); err != nil {
		t.Fatalf("crawl --rules: %v %s", err, stderr.String())
	}
	if n := countRows(t, dbPath, `SELECT count(*) FROM run_symptoms WHERE symptom_id = 'api-port-refused'`); n != 0 {
		t.Fatalf("%d runs classified with the new rule before a refetch", n)
	}
	if err := run(t.Context(), append([]string{"backfill", "--refetch", "--rules", rules}, base...), &stdout, &stderr); err != nil {
		t.Fatalf("backfill --refetch: %v %s", err, stderr.String())
	}
	// The sample bucket plants refusals on the API port (6443) as a
	// near-miss of etcd-connection-refused: count the runs by plain search.
	want := 0
	jobs := "*upgrade*"
	if j := shortJob(); j != "" {
		jobs = "*" + j + "*"
	}
	logs, _ := filepath.Glob(filepath.Join(sampleBucket, "logs", jobs, "*", "artifacts", "*", "openshift-e2e-test", "build-log.txt"))
	for _, l := range logs {
		if b, _ := os.ReadFile(l); bytes.Contains(b, []byte(":6443: connect: connection refused")) {
			want++
		}
	}
	if n := countRows(t, dbPath, `SELECT count(*) FROM run_symptoms WHERE symptom_id = 'api-port-refused'`); n != want || want == 0 {
		t.Errorf("%d runs show the new symptom after the refetch, want %d", n, want)
	}
	if n := countRows(t, dbPath, `SELECT count(*) FROM symptoms WHERE active = 1`); n != 8 {
		t.Errorf("%d active symptoms, want the 7 built-in ones and the new one", n)
	}
	if n := countRows(t, dbPath, `SELECT count(*) FROM run_symptoms WHERE symptom_id = 'pod-network-cross-node'`); n == 0 {
		t.Error("the built-in symptoms were lost when a rules file was added")
	}
}

func TestClassifyCommand(t *testing.T) {
	run14098 := filepath.Join(sampleBucket, "logs", "release-openshift-origin-installer-e2e-aws-upgrade", "14098")
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"classify", run14098}, &stdout, &stderr); err != nil {
		t.Fatalf("classify: %v %s", err, stderr.String())
	}
	out := stdout.String()
	// The seed run of bug 1791117: the SDN rollout, the CNI plugin and the APIs.
	for _, want := range []string{"started 2020-01-12", "cni-default-network-missing", "sdn-rollout-readiness-loss",
		"Missing CNI default network", "api-unavailable-during-upgrade"} {
		if !strings.Contains(out, want) {
			t.Errorf("classify output lacks %q:\n%s", want, out)
		}
	}

	stdout.Reset()
	logFile := filepath.Join(run14098, "build-log.txt")
	if err := run(t.Context(), []string{"classify", "--format", "json", logFile}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	var got []struct {
		Path     string
		Symptoms []struct {
			Symptom string
			Hits    int
			Line    int
			Excerpt string
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("classify --format json: %v\n%s", err, stdout.String())
	}
	if len(got) != 1 || len(got[0].Symptoms) == 0 {
		t.Fatalf("classify of one file found %+v", got)
	}
	for _, s := range got[0].Symptoms {
		if s.Hits == 0 || s.Line == 0 || s.Excerpt == "" {
			t.Errorf("symptom %s without evidence: %+v", s.Symptom, s)
		}
	}

	// A directory that is not a run is refused in one sentence, exit 2.
	empty := t.TempDir()
	stderr.Reset()
	err := run(t.Context(), []string{"classify", empty}, &stdout, &stderr)
	if code := exitCode(err, &stderr); code != 2 || strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 || !strings.Contains(stderr.String(), "is an empty directory, not a run") {
		t.Errorf("classify of an empty directory: exit %d, stderr %q; want 2 and one sentence", code, stderr.String())
	}
}

func TestRulesCommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"rules"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "id: etcd-connection-refused") {
		t.Errorf("prowcrawl rules does not print the built-in rules file")
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(good, []byte(userRules), 0o644)
	os.WriteFile(bad, []byte("symptoms:\n  - id: x\n    title: t\n    files: [a]\n    match:\n      - lines:\n          any: ['(']\n"), 0o644)

	stdout.Reset()
	if err := run(t.Context(), []string{"rules", "--rules", good}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "api-port-refused") || !strings.Contains(stdout.String(), "upgrade-incomplete") {
		t.Errorf("rules --rules lists:\n%s", stdout.String())
	}
	stderr.Reset()
	err := run(t.Context(), []string{"rules", "--check", bad}, &stdout, &stderr)
	if code := exitCode(err, &stderr); code != 2 || !strings.Contains(stderr.String(), "bad.yaml:7:") {
		t.Errorf("rules --check of a bad file: exit %d, stderr %q; want 2 and the line number", code, stderr.String())
	}
}

// TestRulesDisabled: an entry {id: ID, disabled: true} turns a built-in
// symptom off for rules and crawl; one naming no built-in is refused.
func TestRulesDisabled(t *testing.T) {
	dir := t.TempDir()
	off := filepath.Join(dir, "off.yaml")
	typo := filepath.Join(dir, "typo.yaml")
	os.WriteFile(off, []byte("symptoms:\n  - {id: pod-network-cross-node, disabled: true}\n"), 0o644)
	os.WriteFile(typo, []byte("symptoms:\n  - {id: pod-network-crossnode, disabled: true}\n"), 0o644)
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"rules", "--check", off}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "runs 6 rules") {
		t.Errorf("rules --check with one built-in disabled: %s", stdout.String())
	}
	stdout.Reset()
	if err := run(t.Context(), []string{"rules", "--rules", off}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout.String(), "pod-network-cross-node") {
		t.Errorf("rules --rules lists the disabled symptom:\n%s", stdout.String())
	}
	err := run(t.Context(), []string{"rules", "--check", typo}, &stdout, &stderr)
	if code := exitCode(err, &stderr); code != 2 || !strings.Contains(stderr.String(), "disables pod-network-crossnode") {
		t.Errorf("a disabled entry with an unknown id: exit %d, stderr %q", code, stderr.String())
	}

	dbPath := filepath.Join(dir, "prowcrawl.db")
	if err := run(t.Context(), withShortJob("crawl", "--bucket", sampleBucket, "--db", dbPath, "--since", "2019-01-01", "--rules", off), &stdout, &stderr); err != nil {
		t.Fatalf("crawl: %v %s", err, stderr.String())
	}
	if n := countRows(t, dbPath, `SELECT count(*) FROM run_symptoms WHERE symptom_id = 'pod-network-cross-node'`); n != 0 {
		t.Errorf("a crawl with the symptom disabled recorded it on %d runs", n)
	}
	if n := countRows(t, dbPath, `SELECT count(*) FROM symptoms WHERE active = 1`); n != 6 {
		t.Errorf("%d active symptoms, want the 6 left on", n)
	}
}
