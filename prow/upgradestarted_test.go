package prow

import (
	"os"
	"testing"
)

func TestUpgradeBegan(t *testing.T) {
	installed := &ClusterVersion{History: []Update{{State: UpdateCompleted, Version: "4.13.10"}}}
	upgraded := &ClusterVersion{History: []Update{{State: UpdatePartial, Version: "4.14.0"}, {State: UpdateCompleted, Version: "4.13.10"}}}
	ack := func(s TestStatus) []TestResult {
		return []TestResult{{Suite: "openshift-tests-upgrade", Name: AckUpgradeTest, Status: s}}
	}
	other := []TestResult{{Name: "install should succeed: overall", Status: StatusFail}}
	for _, c := range []struct {
		name      string
		cv        *ClusterVersion
		tests     []TestResult
		junitRead bool
		began, ok bool
	}{
		{"a second history entry", upgraded, nil, false, true, true},
		{"a second entry although the test failed", upgraded, ack(StatusFail), true, true, true},
		{"acknowledged", nil, ack(StatusPass), true, true, true},
		{"acknowledged after a retry", installed, append(ack(StatusFail), ack(StatusPass)...), true, true, true},
		{"not acknowledged", installed, ack(StatusFail), true, false, true},
		{"not acknowledged, no clusterversion", nil, ack(StatusFail), true, false, true},
		{"install failed: one entry, no test", installed, other, true, false, true},
		{"the prefixed name", installed, []TestResult{{Name: "Cluster upgrade." + AckUpgradeTest, Status: StatusFail}}, true, false, true},
		{"skipped says nothing", nil, ack(StatusSkip), true, false, false},
		{"nothing read", nil, nil, false, false, false},
		{"no clusterversion and no test", nil, other, true, false, false},
		{"one entry but no JUnit read", installed, nil, false, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			began, ok := UpgradeBegan(c.cv, c.tests, c.junitRead)
			if began != c.began || ok != c.ok {
				t.Errorf("UpgradeBegan = %v, %v; want %v, %v", began, ok, c.began, c.ok)
			}
		})
	}
}

// TestUpgradeBeganRealClusterVersion reads the real clusterversion fixtures:
// an installed cluster (one history entry) never began an upgrade, an
// upgraded one (completed or partial) did.
func TestUpgradeBeganRealClusterVersion(t *testing.T) {
	for file, want := range map[string]bool{
		"clusterversion_install.json":   false,
		"clusterversion_completed.json": true,
		"clusterversion_partial.json":   true,
	} {
		b, err := os.ReadFile("testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		cv, err := ParseClusterVersion(b)
		if err != nil {
			t.Fatal(err)
		}
		if began, ok := UpgradeBegan(&cv, nil, true); began != want || !ok {
			t.Errorf("%s (%d history entries): began %v, %v; want %v", file, len(cv.History), began, ok, want)
		}
	}
}
