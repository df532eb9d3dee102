package suggest

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// alertsTest is the test that fails for whichever alert fired: one test,
// dozens of failure modes.
const alertsTest = "[sig-instrumentation][Late] Alerts shouldn't report any unexpected alerts in firing or pending state [apigroup:config.openshift.io] [Suite:openshift/conformance/parallel]"

// alertMessage is the test's failure as origin writes it, for one alert.
func alertMessage(r *rand.Rand, alert, namespace string) string {
	return fmt.Sprintf("fail [github.com/openshift/origin/test/extended/prometheus/prometheus.go:%d]: Unexpected error:\n"+
		"    <errors.aggregate | len:1, cap:1>: \n    promQL query returned unexpected results:\n"+
		"    ALERTS{alertname!~\"Watchdog|AlertmanagerReceiversNotConfigured|PrometheusRemoteWriteDesiredShards\",alertstate=~\"firing|pending\",severity!=\"info\"} >= 1\n"+
		"    [\n      {\n        \"metric\": {\n          \"__name__\": \"ALERTS\",\n          \"alertname\": \"%s\",\n          \"alertstate\": \"firing\",\n"+
		"          \"namespace\": \"%s\",\n          \"severity\": \"warning\"\n        },\n        \"value\": [\n          %d.%03d,\n          \"1\"\n        ]\n      }\n    ]",
		560+r.IntN(40), alert, namespace, 1763600000+r.IntN(900000), r.IntN(1000))
}

// TestAlertsTestSplitByAlert: two alerts failing the same test in
// different runs, among background failures of that test for thirty other
// alerts, are two proposals, each with exactly its runs: a proposal "the
// Alerts test failed" would tell nobody which alert to chase.
func TestAlertsTestSplitByAlert(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 1))
	planted := []struct{ alert, ns string }{{"KubeAPIErrorBudgetBurn", "openshift-kube-apiserver"}, {"ClusterOperatorDegraded", "openshift-cluster-version"}}
	background := [][2]string{{"KubePodNotReady", "openshift-monitoring"}, {"TargetDown", "openshift-dns"}, {"etcdMembersDown", "openshift-etcd"},
		{"KubeContainerWaiting", "openshift-marketplace"}, {"KubeDeploymentReplicasMismatch", "openshift-console"}, {"AlertmanagerFailedReload", "openshift-monitoring"},
		{"KubeDaemonSetRolloutStuck", "openshift-multus"}, {"NodeClockNotSynchronising", "openshift-monitoring"}, {"KubeJobFailed", "openshift-operator-lifecycle-manager"},
		{"MCDDrainError", "openshift-machine-config-operator"}, {"PrometheusOperatorRejectedResources", "openshift-user-workload-monitoring"},
		{"KubeAPIDown", "openshift-kube-apiserver"}, {"ClusterNotUpgradeable", "openshift-cluster-version"}, {"InsightsDisabled", "openshift-insights"},
		{"KubeStatefulSetReplicasMismatch", "openshift-monitoring"}, {"etcdHighFsyncDurations", "openshift-etcd"}, {"KubeletDown", "kube-system"},
		{"NodeNetworkInterfaceFlapping", "openshift-monitoring"}, {"OVNKubernetesNodeOVSOverflowKernel", "openshift-ovn-kubernetes"}, {"SamplesImagestreamImportFailing", "openshift-cluster-samples-operator"}}
	nbg := 0
	var runs []Run
	var texts []Text
	want := []map[int64]bool{{}, {}}
	for i := range 600 {
		run := Run{Job: "periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade", BuildID: int64(i), Edge: "4.13->4.14 minor", Failed: i%3 != 0}
		runs = append(runs, run)
		if !run.Failed {
			continue
		}
		switch {
		case i%10 == 1 && len(want[0]) < 30:
			want[0][int64(i)] = true
			texts = append(texts, Text{Run: i, Kind: KindJUnit, Test: alertsTest, Text: alertMessage(r, planted[0].alert, planted[0].ns)})
		case i%10 == 2 && len(want[1]) < 25:
			want[1][int64(i)] = true
			texts = append(texts, Text{Run: i, Kind: KindJUnit, Test: alertsTest, Text: alertMessage(r, planted[1].alert, planted[1].ns)})
		case i%10 == 4:
			// The background: twenty other alerts, in two runs each.
			bg := background[nbg%len(background)]
			nbg++
			texts = append(texts, Text{Run: i, Kind: KindJUnit, Test: alertsTest, Text: alertMessage(r, bg[0], bg[1])})
		}
	}
	res := propose(t, runs, texts, Options{}, 0)
	logProposals(t, res)
	// Nor a rule of what every alert's failure says: it would be the
	// test failing, whichever alert fired.
	for _, pr := range res.Proposals {
		if len(pr.Runs) > len(want[0]) {
			t.Errorf("%s covers %d runs, more than any alert's: %s", pr.ID, len(pr.Runs), pr.Pattern)
		}
	}
	for m, p := range planted {
		if !coversExactly(res, want[m]) {
			t.Errorf("no proposal covers exactly the %d runs where %s failed the Alerts test", len(want[m]), p.alert)
		}
	}
}

// TestFamilyNeverProposed: a pattern that is mostly "anything" between a
// few words (a family of tests: ^\[sig-.*\].*should support.*) is no
// finding; one whose members dropped a word or two from a long line (a
// mode in three wordings) is.
func TestFamilyNeverProposed(t *testing.T) {
	toks := func(words ...string) []ctok {
		var out []ctok
		for _, w := range words {
			out = append(out, ctok{text: w, space: true})
		}
		return out
	}
	// gapped joins parts with a gap before each but the first.
	gapped := func(parts ...[]string) []ctok {
		var out []ctok
		for i, p := range parts {
			ts := toks(p...)
			if i > 0 && len(ts) > 0 {
				ts[0].gap = true
			}
			out = append(out, ts...)
		}
		return out
	}
	for _, c := range []struct {
		name   string
		line   []ctok
		family bool
	}{
		{"a test-name family", gapped([]string{"[", "sig"}, []string{"]"}, []string{"should", "support"}), true},
		{"two words either side of a gap", gapped([]string{"unexpected", "error"}, []string{"timed", "out"}), true},
		{"a mode in three wordings", gapped([]string{"router", "pod", "router-default", "on", "node"}, []string{"lost", "its", "lease"}), false},
		{"no gap", toks("context", "deadline", "exceeded"), false},
	} {
		if got := family(c.line); got != c.family {
			t.Errorf("%s: family %v, want %v", c.name, got, c.family)
		}
	}
}
