package prow

import "strings"

// AckUpgradeTest is the test openshift-tests runs when the cluster version
// operator takes the upgrade on: "[sig-cluster-lifecycle] Cluster version
// operator acknowledges upgrade", sometimes in a suite named "Cluster
// upgrade" or prefixed "Cluster upgrade.".
const AckUpgradeTest = "[sig-cluster-lifecycle] Cluster version operator acknowledges upgrade"

// UpgradeBegan is whether a run's upgrade began: the populations contract
// of the design. It is false (the install failed, or the cluster version
// operator never acknowledged the upgrade) when the clusterversion has no
// second history entry and the acknowledgement test failed or is absent;
// true when there is a second entry or the test passed; unknown (ok false)
// when neither the clusterversion nor the JUnit was read, or when the
// clusterversion is missing and so is the test, which says nothing.
//
// cv is nil when the run has no clusterversion.json that could be read;
// tests are the run's merged tests (MergeTests: a test that failed and
// passed is a flake), junitRead whether any JUnit file was read.
func UpgradeBegan(cv *ClusterVersion, tests []TestResult, junitRead bool) (began, ok bool) {
	ack := ackStatus(tests)
	switch {
	case cv != nil && len(cv.History) > 1:
		return true, true
	case ack == StatusPass || ack == StatusFlake:
		return true, true
	case ack == StatusFail:
		return false, true
	case cv != nil && junitRead:
		// One history entry (the install) and no acknowledgement in the
		// JUnit that was read: the upgrade never began.
		return false, true
	}
	return false, false
}

// ackStatus is the merged status of the acknowledgement test in tests, or
// "" when it is absent (or only skipped).
func ackStatus(tests []TestResult) TestStatus {
	var st TestStatus
	for _, t := range tests {
		name := strings.TrimPrefix(t.Name, "Cluster upgrade.")
		if name != AckUpgradeTest || t.Status == StatusSkip {
			continue
		}
		switch {
		case st == "":
			st = t.Status
		case st != t.Status:
			st = StatusFlake
		}
	}
	return st
}
