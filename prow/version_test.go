package prow

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckVersion: the versions and payload tags real artifacts hold pass;
// anything that could add a line or a key where a version is written does
// not.
func TestCheckVersion(t *testing.T) {
	for _, v := range []string{"", "4.14.0", "4.14", "v4.14.3", "4.14.0-0.nightly-2023-09-01-001122", "4.15.0-ec.2",
		"4.13.0-rc.3", "4.14.0-0.ci-2023-08-30-102030", "4.16.0-0.nightly-arm64-2024-02-07-123456", "4.14.0-0.okd-scos-2023-10-11-150513",
		"4.12.0+build.5"} {
		if err := CheckVersion(v); err != nil {
			t.Errorf("CheckVersion(%q) = %v, want nil", v, err)
		}
	}
	for _, v := range []string{"4.12.0\nfixedIn: 4.12.0", "4.12.0\n---\nto: 4.99.0", "4.14.0\x1b]52;c;aGk=\x07", "4.14.0 ", "latest",
		"4.14.0-", "../4.14.0", "4.14.0/../../x", strings.Repeat("4", 200) + ".1", "4.14.0-" + strings.Repeat("a", 200)} {
		err := CheckVersion(v)
		if !errors.Is(err, ErrBadVersion) {
			t.Errorf("CheckVersion(%q) = %v, want ErrBadVersion", v, err)
		}
		if err != nil && strings.ContainsAny(err.Error(), "\n\x1b\x07") {
			t.Errorf("CheckVersion(%q)'s error holds the raw bytes: %q", v, err)
		}
	}
}

// TestBadVersionsAreParseProblems: a clusterversion history version with a
// newline fails the file (a parse problem of the run); a prowjob.json tag
// with one is left out, the rest of the prowjob kept.
func TestBadVersionsAreParseProblems(t *testing.T) {
	cv := `{"apiVersion":"config.openshift.io/v1","kind":"ClusterVersion","metadata":{"name":"version"},
"status":{"history":[{"state":"Completed","version":"4.12.0\nfixedIn: 4.12.0","image":"quay.io/x@sha256:1","startedTime":"2026-11-10T10:00:00Z","completionTime":"2026-11-10T11:00:00Z"}]}}`
	if _, err := ParseClusterVersion([]byte(cv)); !errors.Is(err, ErrBadVersion) {
		t.Errorf("clusterversion with a newline in a version: %v, want ErrBadVersion", err)
	}
	pj := `{"kind":"ProwJob","metadata":{"annotations":{"prow.k8s.io/job":"periodic-ci-x-4.14-e2e-aws-upgrade","release.openshift.io/tag":"4.14.0\u001b[2J","release.openshift.io/from-tag":"4.13.9"},
"labels":{"prow.k8s.io/type":"periodic"}},"spec":{"type":"periodic","job":"periodic-ci-x-4.14-e2e-aws-upgrade"},"status":{"state":"success"}}`
	got, err := ParseProwJob([]byte(pj))
	if !errors.Is(err, ErrBadVersion) {
		t.Fatalf("prowjob with an escape in its tag: %v, want ErrBadVersion", err)
	}
	if got.Tag != "" || got.FromTag != "4.13.9" || got.Type != "periodic" || got.Job == "" {
		t.Errorf("prowjob kept %+v; want the bad tag left out and the rest kept", got)
	}
}
