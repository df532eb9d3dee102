package prowcrawl

import (
	"strings"

	"github.com/openshift-eng/prowcrawl/prow"
)

// OverallResult is Sippy's one-letter verdict on a whole run
// (sippyprocessing JobOverallResult, as its jobRunStatus derives it): what
// kind of failure, if any, ended the run.
type OverallResult string

// The overall results. Infrastructure failures (N, n) say nothing of the
// product: like runs whose upgrade never began, they are counted apart.
const (
	OverallSuccess        OverallResult = "S" // the run succeeded
	OverallTestFailure    OverallResult = "F" // tests failed
	OverallUpgradeFailure OverallResult = "U" // the upgrade began, and operators or machine config pools did not finish it
	OverallInstallFailure OverallResult = "I" // the install failed, with operators to say why
	OverallInfraFailure   OverallResult = "N" // external infrastructure: the install failed with no operator results
	OverallInternalInfra  OverallResult = "n" // internal infrastructure: a Prow error, or a failure with no recognisable cause
	OverallAborted        OverallResult = "A" // aborted
	OverallRunning        OverallResult = "R" // still running
)

// OverallResults are the overall results in Sippy's order, each with
// what it means in a few words.
var OverallResults = []struct {
	Code    OverallResult
	Meaning string
}{
	{OverallSuccess, "success"}, {OverallTestFailure, "test failure"}, {OverallUpgradeFailure, "upgrade failure"},
	{OverallInstallFailure, "install failure"}, {OverallInfraFailure, "external infrastructure"},
	{OverallInternalInfra, "internal infrastructure"}, {OverallAborted, "aborted"}, {OverallRunning, "running"},
}

// Infrastructure says whether the run failed for a reason of CI's, not of
// the product's: Sippy's InfraFailure, out of every rate.
func (o OverallResult) Infrastructure() bool {
	return o == OverallInfraFailure || o == OverallInternalInfra
}

// OverallOf derives a run's overall result as Sippy does, from Prow's
// result, the run's merged JUnit results and whether its upgrade began
// (nil: unknown). The markers are the tests Sippy reads:
//   - install: "install should succeed: overall" and the install steps'
//     container tests ("... ipi-install-install container test", and the
//     template era's "... container setup");
//   - operator results: "Operator results.operator conditions <op>" (suite
//     "Operator results", test "operator conditions <op>");
//   - upgrade: "[sig-cluster-lifecycle] Cluster completes upgrade" and
//     "[sig-mco] Machine config pools complete upgrade";
//   - tests: any other test that failed.
//
// A failed run without an install marker has no recognisable cause: n.
func OverallOf(result Result, tests []prow.TestResult, upgradeStarted *bool) OverallResult {
	switch result {
	case ResultSuccess:
		return OverallSuccess
	case ResultAborted:
		return OverallAborted
	case ResultError:
		return OverallInternalInfra
	case ResultFailure:
	default:
		return OverallRunning
	}
	install, operators, upgradeFailed, testsFailed := "", false, false, false
	began := upgradeStarted != nil && *upgradeStarted
	for _, t := range tests {
		failed := t.Status == prow.StatusFail
		switch {
		case isInstallMarker(t.Name):
			switch {
			case failed:
				install = "fail"
			case install == "" && (t.Status == prow.StatusPass || t.Status == prow.StatusFlake):
				install = "pass"
			}
		case t.Suite == "Operator results" || strings.HasPrefix(t.Name, "Operator results.operator conditions "):
			operators = true
		case isUpgradeMarker(t.Name):
			upgradeFailed = upgradeFailed || failed
		case strings.Contains(t.Name, "Cluster version operator acknowledges upgrade"):
			began = began || t.Status == prow.StatusPass || t.Status == prow.StatusFlake
		default:
			testsFailed = testsFailed || failed
		}
	}
	switch {
	case install == "fail" && !operators:
		return OverallInfraFailure
	case install == "fail":
		return OverallInstallFailure
	case began && upgradeFailed:
		return OverallUpgradeFailure
	case testsFailed:
		return OverallTestFailure
	}
	// No install marker, or nothing that says why it failed.
	return OverallInternalInfra
}

// isInstallMarker is a test that says whether the cluster installed.
func isInstallMarker(name string) bool {
	return strings.Contains(name, "install should succeed: overall") ||
		strings.HasSuffix(name, "ipi-install-install container test") ||
		strings.HasSuffix(name, "ipi-install-install-stableinitial container test") ||
		strings.HasSuffix(name, " container setup")
}

// isUpgradeMarker is a test that says whether the upgrade finished.
func isUpgradeMarker(name string) bool {
	return strings.Contains(name, "[sig-cluster-lifecycle] Cluster completes upgrade") ||
		strings.Contains(name, "[sig-mco] Machine config pools complete upgrade")
}
