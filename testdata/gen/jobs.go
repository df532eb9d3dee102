package main

import (
	"fmt"
	"time"
)

// Job names. The periodic names follow ci-operator's
// periodic-ci-<org>-<repo>-<branch>-<variant>-<test> pattern.
const (
	sampleJob     = "periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade"
	basisJob      = "periodic-ci-openshift-release-master-ci-4.13-upgrade-from-stable-4.12-e2e-aws-ovn-upgrade"
	microJob      = "periodic-ci-openshift-release-master-nightly-4.14-e2e-aws-sdn-upgrade"
	microBasisJob = "periodic-ci-openshift-release-master-ci-4.13-e2e-aws-sdn-upgrade"
	templateJob   = "release-openshift-origin-installer-e2e-aws-upgrade"
	installJob    = "periodic-ci-openshift-release-master-nightly-4.14-e2e-aws-ovn"
	presubmitJob  = "pull-ci-openshift-origin-master-e2e-aws-ovn-upgrade"
)

// Run results as plans state them; finished.json spells them in upper case
// unless plan.crier is set.
const (
	success = "success"
	failure = "failure"
	aborted = "aborted"
	pending = "pending"
)

// Pod-network breakage flavours (plan.podNet).
const (
	podNetTimeout = "timeout" // dial tcp <pod ip>: i/o timeout
	podNetClient  = "client"  // context deadline exceeded (Client.Timeout exceeded ...)
	podNetMixed   = "mixed"   // both
)

// Near-misses planted in the basis job (plan.nearMiss bits).
const (
	nearAPIPort    = 1 << iota // dial tcp 10.0.0.5:6443: connect: connection refused
	nearServiceNet             // dial tcp 172.30.0.10:443: i/o timeout
	nearProbe500               // Readiness probe failed: HTTP probe failed with statuscode: 500
)

type job struct {
	name     string
	typ      string // prow job type: periodic or presubmit
	target   string // ci-operator --target, the artifacts/<target>/ directory
	variant  string // ci-operator --variant
	network  string // ovn or sdn: which daemonset rolls out during the upgrade
	upgrade  bool
	template bool                           // 2020 template-era layout
	kube     string                         // kube-apiserver version of the payload under test
	versions func(r *run) (from, to string) // payload versions when the plan does not fix them
	plans    []plan
}

// plan is one run and the facts planted in it.
type plan struct {
	start    string // UTC date (the time of day comes from the RNG) or an RFC 3339 time
	id       int64  // fixed build id (template era); 0 derives a snowflake id from start
	result   string
	crier    bool   // finished.json as crier's fallback writes it: lower-case result, no metadata
	noTags   bool   // prowjob.json without release.openshift.io annotations
	from, to string // payload versions, when fixed

	podNet        string // pod-network-cross-node through monitor lines of this flavour
	podNetBackend bool   // ... and pod-to-pod-new-connections disruption above 0s
	etcd          bool   // etcd-connection-refused and etcd-transport-closing in the kube-apiserver log
	etcdIP        string // the etcd member that refuses, when fixed
	cni           bool   // cni-default-network-missing
	sdnSeq        bool   // sdn-rollout-readiness-loss: SDN restart, then a probe failure 8-12 s later
	sdnLate       bool   // near-miss: SDN restart, then a probe failure 90 s later
	apiDown       bool   // api-unavailable-during-upgrade
	partial       bool   // upgrade-incomplete: clusterversion Partial, "Cluster completes upgrade" failed
	nearMiss      int    // nearAPIPort | nearServiceNet | nearProbe500
	seed002       bool   // the seed 002 run (14098): its monitor lines verbatim

	flake    string // a Cluster upgrade test that fails and passes (a flake)
	e2eFlake string // an openshift-tests test that fails, is retried and passes
	fail     string // an openshift-tests test that fails with no symptom
	// fail2 is a second such test: a failure mode that several runs
	// share and no rule names, for suggest to find.
	fail2 string
	pr    int // presubmit pull request number
	// neverBegan: the install finished but the cluster version operator
	// never took the upgrade on (one clusterversion history entry, the
	// acknowledgement test failed): the run is left out of the rates.
	neverBegan bool
	oldPath    bool // presubmit stored as pr-logs/pull/<pr>/... without org_repo
	// oneNode: a single-node cluster, where a pod-address timeout (podNet)
	// is not pod-network-cross-node: one node has no cross-node traffic.
	oneNode bool
	// noNetTest: the pod-network breakage fails no networking e2e test
	// (the population jobs: their failures must not outnumber the ones a
	// test of suggest plants).
	noNetTest bool
}

// symptoms lists the built-in symptom ids the plan plants, sorted.
func (p plan) symptoms() []string {
	var s []string
	if p.apiDown || p.seed002 {
		s = append(s, "api-unavailable-during-upgrade")
	}
	if p.cni || p.seed002 {
		s = append(s, "cni-default-network-missing")
	}
	if p.etcd {
		s = append(s, "etcd-connection-refused", "etcd-transport-closing")
	}
	if p.podNet != "" && !p.oneNode || p.seed002 {
		s = append(s, "pod-network-cross-node")
	}
	if p.sdnSeq || p.seed002 {
		s = append(s, "sdn-rollout-readiness-loss")
	}
	if p.partial {
		s = append(s, "upgrade-incomplete")
	}
	return s
}

func allJobs() []*job {
	return append([]*job{
		{
			name: sampleJob, typ: "periodic", target: "e2e-aws-ovn-upgrade",
			variant: "ci-4.14-upgrade-from-stable-4.13", network: "ovn", upgrade: true, kube: "v1.27.16+03a907c",
			versions: stableToCI("4.13", 44, 52, "4.14"),
			plans: []plan{
				{start: "2026-11-10", result: success},
				{start: "2026-11-11", result: success},
				{start: "2026-11-12", result: success, flake: testLBNew},
				{start: "2026-11-13", result: success, etcd: true},
				{start: "2026-11-14", result: success, etcd: true, e2eFlake: testCSIBlock},
				{start: "2026-11-15", result: aborted},
				{start: "2026-11-16", result: failure, fail: testMustGather, fail2: testMCODegraded},
				{start: "2026-11-17", result: success, flake: testAlerts},
				// The onset: every payload from Nov 18 on but the last shows
				// pod-network-cross-node, none before it.
				{start: "2026-11-18", result: failure, podNet: podNetTimeout, fail2: testMCODegraded},
				{start: "2026-11-19", result: failure, podNet: podNetMixed, podNetBackend: true, crier: true},
				{start: "2026-11-20", result: failure, podNet: podNetMixed, podNetBackend: true, etcd: true, etcdIP: "10.0.61.114", fail2: testMCODegraded},
				{start: "2026-11-21", result: success, podNet: podNetClient},
				{start: "2026-11-22", result: failure, podNet: podNetTimeout, podNetBackend: true, partial: true},
				{start: "2026-11-24", result: failure, podNet: podNetClient, fail2: testMCODegraded},
				{start: "2026-11-25", result: success},
				{start: "2026-11-27", result: pending},
				// The upgrade never began: left out of every rate, or
				// pod-network-cross-node would be 7/15 here.
				{start: "2026-11-23", result: failure, neverBegan: true, podNet: podNetTimeout},
			},
		},
		{
			name: basisJob, typ: "periodic", target: "e2e-aws-ovn-upgrade",
			variant: "ci-4.13-upgrade-from-stable-4.12", network: "ovn", upgrade: true, kube: "v1.26.15+4818370",
			versions: stableToCI("4.12", 60, 68, "4.13"),
			plans: []plan{
				{start: "2026-10-20", result: success},
				{start: "2026-10-23", result: success, etcd: true, nearMiss: nearAPIPort},
				{start: "2026-10-26", result: success, nearMiss: nearServiceNet},
				{start: "2026-10-28", result: failure, fail: testDNSServices, nearMiss: nearProbe500, fail2: testMCDBackOff},
				{start: "2026-10-31", result: success, flake: testAlerts},
				{start: "2026-11-02", result: success, nearMiss: nearAPIPort | nearServiceNet},
				{start: "2026-11-05", result: success, etcd: true},
				{start: "2026-11-08", result: success, crier: true, nearMiss: nearProbe500},
				{start: "2026-11-11", result: success, e2eFlake: testServiceEndpoint},
				{start: "2026-11-14", result: failure, fail: testConntrack, nearMiss: nearAPIPort, fail2: testMCDBackOff},
				{start: "2026-11-17", result: success, nearMiss: nearServiceNet},
				{start: "2026-11-20", result: success, etcd: true, nearMiss: nearProbe500},
				{start: "2026-11-23", result: success},
				{start: "2026-11-26", result: success, nearMiss: nearAPIPort},
			},
		},
		{
			name: microJob, typ: "periodic", target: "e2e-aws-sdn-upgrade",
			variant: "nightly-4.14", network: "sdn", upgrade: true, kube: "v1.27.16+03a907c",
			versions: payloadToPayload("4.14.0-0.nightly-"),
			plans: []plan{
				{start: "2026-11-05", result: success},
				{start: "2026-11-08", result: failure, cni: true, sdnSeq: true, fail: testSandbox},
				{start: "2026-11-10", result: success},
				{start: "2026-11-12", result: success, flake: testLBNew},
				{start: "2026-11-15", result: success, cni: true, sdnSeq: true},
				{start: "2026-11-17", result: success, sdnLate: true},
				{start: "2026-11-20", result: success, cni: true},
				{start: "2026-11-22", result: success},
				{start: "2026-11-25", result: failure, apiDown: true, fail2: testMCDBackOff},
				{start: "2026-11-28", result: success},
			},
		},
		{
			name: microBasisJob, typ: "periodic", target: "e2e-aws-sdn-upgrade",
			variant: "ci-4.13", network: "sdn", upgrade: true, kube: "v1.26.15+4818370",
			versions: payloadToPayload("4.13.0-0.ci-"),
			plans: []plan{
				{start: "2026-10-25", result: success},
				{start: "2026-10-28", result: success},
				{start: "2026-10-31", result: failure, cni: true, fail: testSandbox},
				{start: "2026-11-03", result: success},
				{start: "2026-11-06", result: success, flake: testAlerts},
				{start: "2026-11-10", result: failure, fail: testCSIBlock, fail2: testMCDBackOff},
				{start: "2026-11-13", result: success},
				{start: "2026-11-17", result: success, cni: true},
				{start: "2026-11-21", result: success},
				{start: "2026-11-25", result: success},
			},
		},
		{
			name: templateJob, typ: "periodic", target: "e2e-aws-upgrade",
			network: "sdn", upgrade: true, template: true, kube: "v1.17.1",
			plans: []plan{
				{start: "2020-01-02T03:14:07Z", id: 9998, result: success, noTags: true,
					from: "4.3.0-rc.0", to: "4.4.0-0.nightly-2020-01-01-233310"},
				{start: "2020-01-02T09:41:52Z", id: 9999, result: failure, noTags: true, fail: testFrontends2020,
					from: "4.3.0-rc.0", to: "4.4.0-0.nightly-2020-01-02-061738"},
				{start: "2020-01-03T01:05:31Z", id: 10000, result: success, noTags: true,
					from: "4.3.0-rc.0", to: "4.4.0-0.nightly-2020-01-02-220412"},
				{start: "2020-01-03T14:27:16Z", id: 10001, result: failure, noTags: true, partial: true, etcd: true,
					from: "4.3.0-rc.0", to: "4.4.0-0.nightly-2020-01-03-112502"},
				{start: "2020-01-12T11:08:45Z", id: 14097, result: success,
					from: "4.4.0-0.nightly-2020-01-11-173452", to: "4.4.0-0.nightly-2020-01-12-083115"},
				{start: "2020-01-12T19:52:34Z", id: 14098, result: failure, seed002: true,
					from: "4.4.0-0.nightly-2020-01-11-173452", to: "4.4.0-0.nightly-2020-01-12-174302"},
				{start: "2020-01-13T06:33:02Z", id: 14102, result: success, crier: true,
					from: "4.4.0-0.nightly-2020-01-12-174302", to: "4.4.0-0.nightly-2020-01-13-032140"},
				{start: "2020-01-24T16:20:19Z", id: 16233, result: success,
					from: "4.3.0", to: "4.4.0-0.nightly-2020-01-24-141203"},
			},
		},
		{
			name: installJob, typ: "periodic", target: "e2e-aws-ovn",
			variant: "nightly-4.14", network: "ovn", kube: "v1.27.16+03a907c",
			versions: func(r *run) (string, string) { return "", "4.14.0-0.nightly-" + payloadStamp(r, 3, 9) },
			plans: []plan{
				{start: "2026-11-20", result: success},
				{start: "2026-11-23", result: failure, etcd: true, fail: testEtcdLeader},
				{start: "2026-11-26", result: success},
			},
		},
		{
			name: presubmitJob, typ: "presubmit", target: "e2e-aws-ovn-upgrade",
			network: "ovn", upgrade: true, kube: "v1.27.16+03a907c",
			versions: func(r *run) (string, string) {
				return "4.14.0-0.ci-" + payloadStamp(r, 6, 20),
					"4.14.0-0.ci.test-" + r.start.Add(12*time.Minute).Format("2006-01-02-150405") + "-" + r.ns + "-latest"
			},
			plans: []plan{
				{start: "2026-11-12", result: success, pr: 28100, oldPath: true},
				{start: "2026-11-21", result: failure, pr: 28431, fail: testRollover},
				{start: "2026-11-22", result: success, pr: 28431},
			},
		},
	}, populationJobs()...)
}

// stableToCI upgrades from a random z-stream of the stable release to a CI
// payload of the next one.
func stableToCI(from string, zLo, zHi int, to string) func(r *run) (string, string) {
	return func(r *run) (string, string) {
		return fmt.Sprintf("%s.%d", from, r.intn(zLo, zHi)), to + ".0-0.ci-" + payloadStamp(r, 2, 10)
	}
}

// payloadToPayload upgrades between two payloads of one stream, a day or two apart.
func payloadToPayload(prefix string) func(r *run) (string, string) {
	return func(r *run) (string, string) {
		return prefix + payloadStamp(r, 28, 50), prefix + payloadStamp(r, 2, 9)
	}
}

// payloadStamp names a payload built between lo and hi hours before the run.
func payloadStamp(r *run, lo, hi int) string {
	t := r.start.Add(-time.Duration(r.intn(lo*60, hi*60)) * time.Minute).Add(-time.Duration(r.intn(0, 59)) * time.Second)
	return t.Format("2006-01-02-150405")
}
