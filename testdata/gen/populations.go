package main

import "time"

// The populations a rate must keep apart from the release's own periodic
// runs: a presubmit and a downgrade job that upgrade 4.14 z-streams like
// microJob, with a symptom microJob never shows; and a single-node job whose
// pod-address timeouts are no pod-network-cross-node. Counted on 4.14
// micro, either would make pod-network-cross-node a regression there.
const (
	presubmitNetJob = "pull-ci-openshift-ovn-kubernetes-master-e2e-aws-ovn-upgrade"
	downgradeJob    = "periodic-ci-openshift-release-master-ci-4.14-e2e-aws-ovn-upgrade-out-of-change"
	singleNodeJob   = "periodic-ci-openshift-release-master-nightly-4.14-e2e-aws-upgrade-ovn-single-node"
)

func populationJobs() []*job {
	ciTest := func(r *run) (string, string) {
		return "4.14.0-0.ci-" + payloadStamp(r, 6, 20),
			"4.14.0-0.ci.test-" + r.start.Add(12*time.Minute).Format("2006-01-02-150405") + "-" + r.ns + "-latest"
	}
	// The newer payload installed, the older one upgraded to.
	down := func(r *run) (string, string) {
		to, from := payloadToPayload("4.14.0-0.ci-")(r)
		return from, to
	}
	return []*job{
		{
			name: presubmitNetJob, typ: "presubmit", target: "e2e-aws-ovn-upgrade",
			network: "ovn", upgrade: true, kube: "v1.27.16+03a907c", versions: ciTest,
			plans: []plan{
				{start: "2026-11-13", result: failure, pr: 4012, podNet: podNetTimeout, noNetTest: true},
				{start: "2026-11-16", result: failure, pr: 4012, podNet: podNetClient, noNetTest: true},
				{start: "2026-11-18", result: failure, pr: 4019, podNet: podNetMixed, noNetTest: true, podNetBackend: true},
				{start: "2026-11-20", result: success, pr: 4019, podNet: podNetTimeout, noNetTest: true},
				{start: "2026-11-23", result: failure, pr: 4027, podNet: podNetTimeout, noNetTest: true},
				{start: "2026-11-25", result: failure, pr: 4027, podNet: podNetMixed, noNetTest: true},
			},
		},
		{
			name: downgradeJob, typ: "periodic", target: "e2e-aws-ovn-upgrade-out-of-change",
			variant: "ci-4.14", network: "ovn", upgrade: true, kube: "v1.27.16+03a907c", versions: down,
			plans: []plan{
				{start: "2026-11-11", result: failure, podNet: podNetTimeout, noNetTest: true},
				{start: "2026-11-14", result: failure, podNet: podNetClient, noNetTest: true, podNetBackend: true},
				{start: "2026-11-17", result: success},
				{start: "2026-11-19", result: failure, podNet: podNetMixed, noNetTest: true},
				{start: "2026-11-22", result: failure, podNet: podNetTimeout, noNetTest: true},
				{start: "2026-11-26", result: failure, podNet: podNetClient, noNetTest: true},
			},
		},
		{
			name: singleNodeJob, typ: "periodic", target: "e2e-aws-upgrade-ovn-single-node",
			variant: "nightly-4.14", network: "ovn", upgrade: true, kube: "v1.27.16+03a907c",
			versions: payloadToPayload("4.14.0-0.nightly-"),
			plans: []plan{
				{start: "2026-11-12", result: success},
				{start: "2026-11-15", result: failure, podNet: podNetTimeout, noNetTest: true, oneNode: true},
				{start: "2026-11-18", result: success},
				{start: "2026-11-21", result: failure, podNet: podNetClient, noNetTest: true, oneNode: true},
				{start: "2026-11-24", result: success},
			},
		},
	}
}
