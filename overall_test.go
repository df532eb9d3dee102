package prowcrawl

import (
	"testing"

	"github.com/openshift-eng/prowcrawl/prow"
)

// TestOverallOf: one run per overall result, its tests named as the
// JUnit files of OpenShift CI name them (ci-operator's step tests, the
// install and operator-results suites, the upgrade suite, openshift-tests).
func TestOverallOf(t *testing.T) {
	const target = "e2e-aws-ovn-upgrade"
	step := func(name string, s prow.TestStatus) prow.TestResult {
		return prow.TestResult{Suite: "operator", Name: "Run multi-stage test " + target + " - " + target + "-" + name + " container test", Status: s}
	}
	install := func(s prow.TestStatus) prow.TestResult {
		return prow.TestResult{Suite: "cluster install", Name: "install should succeed: overall", Status: s}
	}
	operator := func(op string, s prow.TestStatus) prow.TestResult {
		return prow.TestResult{Suite: "Operator results", Name: "operator conditions " + op, Status: s}
	}
	test := func(name string, s prow.TestStatus) prow.TestResult {
		return prow.TestResult{Suite: "openshift-tests-upgrade", Name: name, Status: s}
	}
	acknowledged := test("[sig-cluster-lifecycle] Cluster version operator acknowledges upgrade", prow.StatusPass)
	completes := func(s prow.TestStatus) prow.TestResult {
		return test("[sig-cluster-lifecycle] Cluster completes upgrade", s)
	}
	began, never := true, false
	installed := []prow.TestResult{step("ipi-install-install", prow.StatusPass), install(prow.StatusPass), operator("kube-apiserver", prow.StatusPass)}
	with := func(base []prow.TestResult, more ...prow.TestResult) []prow.TestResult {
		return append(append([]prow.TestResult{}, base...), more...)
	}
	for _, c := range []struct {
		name    string
		result  Result
		tests   []prow.TestResult
		started *bool
		want    OverallResult
	}{
		{"succeeded", "success", with(installed, acknowledged, completes(prow.StatusPass)), &began, OverallSuccess},
		{"a test failed", "failure", with(installed, acknowledged, completes(prow.StatusPass),
			test("[sig-network] pods should be reachable across nodes", prow.StatusFail)), &began, OverallTestFailure},
		{"a flaky test only", "failure", with(installed, acknowledged, completes(prow.StatusPass),
			test("[sig-network] pods should be reachable across nodes", prow.StatusFlake)), &began, OverallInternalInfra},
		{"the upgrade did not complete", "failure", with(installed, acknowledged, completes(prow.StatusFail),
			test("[sig-api-machinery] Kubernetes APIs remain available", prow.StatusFail)), &began, OverallUpgradeFailure},
		{"the upgrade did not complete, its start known from the tests", "failure", with(installed, acknowledged, completes(prow.StatusFail)), nil, OverallUpgradeFailure},
		{"the install failed, operators reported", "failure", []prow.TestResult{step("ipi-install-install", prow.StatusFail), install(prow.StatusFail),
			operator("kube-apiserver", prow.StatusPass), operator("authentication", prow.StatusFail)}, &never, OverallInstallFailure},
		{"the install failed, no operator results (no cloud lease, no cluster)", "failure", []prow.TestResult{step("ipi-install-install", prow.StatusFail)}, &never, OverallInfraFailure},
		{"a Prow error", "error", nil, nil, OverallInternalInfra},
		{"failed with no test results", "failure", nil, nil, OverallInternalInfra},
		{"aborted", "aborted", installed, nil, OverallAborted},
		{"running", "pending", nil, nil, OverallRunning},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := OverallOf(c.result, c.tests, c.started); got != c.want {
				t.Errorf("overall %q, want %q", got, c.want)
			}
			if infra := c.want == OverallInfraFailure || c.want == OverallInternalInfra; OverallOf(c.result, c.tests, c.started).Infrastructure() != infra {
				t.Errorf("Infrastructure() is not %v", infra)
			}
		})
	}
}
