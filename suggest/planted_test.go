package suggest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/internal/testutil"
	"github.com/openshift-eng/prowcrawl/prow"
)

// A planted-modes corpus, measured as triage's clusters are: eight failure
// modes of known runs, each concentrated on one or two jobs, among
// realistic background failures (benchCorpus's Zipf-distributed e2e
// messages, and the Alerts test failing for other alerts everywhere).

// plantedJobs are the jobs of the corpus, ten per edge.
var plantedJobs = func() []string {
	var out []string
	for _, v := range []string{"ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade", "nightly-4.14-e2e-aws-sdn-upgrade",
		"ci-4.13-upgrade-from-stable-4.12-e2e-aws-ovn-upgrade", "nightly-4.15-e2e-gcp-ovn-upgrade"} {
		for i := range 10 {
			out = append(out, fmt.Sprintf("periodic-ci-openshift-release-master-%s-%d", v, i))
		}
	}
	return out
}()

// plantedEdges are the edges of plantedJobs, by index / 10.
var plantedEdges = []string{"4.13->4.14 minor", "4.14 micro", "4.12->4.13 minor", "4.15 micro"}

func ip(r *rand.Rand) string {
	return fmt.Sprintf("10.%d.%d.%d", r.IntN(256), r.IntN(256), 1+r.IntN(254))
}
func ip6(r *rand.Rand) string {
	return fmt.Sprintf("fd01:0:0:%x::%x", r.IntN(16), 1+r.IntN(255))
}
func hostPort(r *rand.Rand) string {
	if r.IntN(2) == 0 {
		return "[" + ip6(r) + "]:" + strconv.Itoa(6443+r.IntN(3))
	}
	return ip(r) + ":" + strconv.Itoa(6443+r.IntN(3))
}
func node(r *rand.Rand) string {
	return fmt.Sprintf("ip-10-0-%d-%d.us-east-2.compute.internal", r.IntN(256), r.IntN(256))
}

// plantedMode is a failure mode: the jobs it fails and how it reads.
type plantedMode struct {
	name string
	jobs []int // of plantedJobs
	text func(r *rand.Rand) Text
}

var plantedModes = []plantedMode{
	{"the Alerts test: KubeAPIErrorBudgetBurn", []int{0, 1}, func(r *rand.Rand) Text {
		return Text{Kind: KindJUnit, Test: alertsTest, Text: alertMessage(r, "KubeAPIErrorBudgetBurn", "openshift-kube-apiserver")}
	}},
	{"API connection refused", []int{12}, func(r *rand.Rand) Text {
		return Text{Kind: KindLog, File: "artifacts/e2e-aws-ovn-upgrade/gather-extra/artifacts/pods/openshift-kube-controller-manager_kube-controller-manager-" + node(r) + "_kube-controller-manager.log", Text: fmt.Sprintf(
			`E1201 %02d:%02d:%02d.%06d       1 reflector.go:%d] k8s.io/client-go/informers/factory.go:%d: Failed to watch *v1.Pod: failed to list *v1.Pod: Get "https://api-int.ci-op-%s.aws-2.ci.openshift.org:6443/api/v1/pods?limit=500&resourceVersion=0": dial tcp %s: connect: connection refused`,
			r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1e6), 100+r.IntN(50), 150+r.IntN(10), k8sName(r, 8), hostPort(r))}
	}},
	{"API i/o timeout", []int{13}, func(r *rand.Rand) Text {
		return Text{Kind: KindLog, File: "artifacts/e2e-aws-ovn-upgrade/gather-extra/artifacts/pods/openshift-cluster-version_cluster-version-operator-" + k8sName(r, 10) + "-" + k8sName(r, 5) + "_cluster-version-operator.log", Text: fmt.Sprintf(
			`E1201 %02d:%02d:%02d.%06d       1 leaderelection.go:%d] error retrieving resource lock openshift-%s/%s-lock: Get "https://%s/apis/coordination.k8s.io/v1/namespaces/openshift-%s/leases/%s-lock?timeout=53.5s": dial tcp %s: i/o timeout`,
			r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1e6), 300+r.IntN(40), "cluster-version", "version", hostPort(r), "cluster-version", "version", hostPort(r))}
	}},
	{"ImagePullBackOff", []int{21}, func(r *rand.Rand) Text {
		return Text{Kind: KindJUnit, Test: "[sig-node] Pods should be submitted and removed [NodeConformance] [Conformance] [Suite:openshift/conformance/parallel/minimal]",
			Text: fmt.Sprintf("fail [k8s.io/kubernetes/test/e2e/framework/pod/pod_client.go:%d]: Unexpected error:\n    <*errors.errorString | 0xc%09x>: \n    pod \"pod-submit-remove-%s\" failed to start: ImagePullBackOff: Back-off pulling image \"registry.k8s.io/e2e-test-images/agnhost:2.43\"\noccurred",
				100+r.IntN(20), r.IntN(1<<30), k8sName(r, 5))}
	}},
	{"router lease lost", []int{2}, func(r *rand.Rand) Text {
		return Text{Kind: KindJUnit, Test: "[sig-network-edge] router keeps its lease through the upgrade [Suite:openshift/conformance/parallel]",
			Text: fmt.Sprintf("fail [github.com/openshift/origin/test/extended/router/metrics.go:%d]: Unexpected error: router pod router-default-%s-%s on node %s lost its lease to the ingress canary after %ds",
				40+r.IntN(3), k8sName(r, 8), k8sName(r, 5), node(r), 30+r.IntN(300))}
	}},
	{"MCD drain refused by a PDB", []int{31, 32}, func(r *rand.Rand) Text {
		return Text{Kind: KindLog, File: "artifacts/e2e-gcp-ovn-upgrade/openshift-e2e-test/artifacts/junit/e2e-events_20261201-" + strconv.Itoa(100000+r.IntN(100000)) + ".json", Text: fmt.Sprintf(
			"ns/openshift-machine-config-operator pod/machine-config-daemon-%s node/%s reason/Drain error when evicting pods/\"%s-%s\" -n \"e2e-%s-%d\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.",
			k8sName(r, 5), node(r), "test-pod", k8sName(r, 5), "disruption", r.IntN(9999))}
	}},
	{"sandbox creation timed out on OVS", []int{3}, func(r *rand.Rand) Text {
		return Text{Kind: KindJUnit, Test: "[sig-network] pods should successfully create sandboxes by adding pod to network [Suite:openshift/conformance/parallel]",
			Text: fmt.Sprintf("%d failures to create the sandbox\n\nns/e2e-test-%s pod/%s-%s node/%s - %d.%03d seconds after deletion - reason/FailedCreatePodSandBox Failed to create pod sandbox: rpc error: code = Unknown desc = failed to create pod network sandbox k8s_%s: error adding pod to CNI network \"multus-cni-network\": plugin type=\"multus-shim\" name=\"multus-cni-network\" failed (add): CmdAdd (shim): timed out waiting for OVS port binding (ovn-installed) for %s",
				1+r.IntN(4), k8sName(r, 5), "client", k8sName(r, 5), node(r), r.IntN(90), r.IntN(1000), k8sName(r, 10), ip(r))}
	}},
	{"etcd leader changed", []int{22, 23}, func(r *rand.Rand) Text {
		return Text{Kind: KindLog, File: "artifacts/e2e-aws-ovn-upgrade/gather-extra/artifacts/pods/openshift-kube-apiserver_kube-apiserver-" + node(r) + "_kube-apiserver.log", Text: fmt.Sprintf(
			`E1201 %02d:%02d:%02d.%06d      18 status.go:%d] "Unhandled Error" err="apiserver received an error that is not an metav1.Status: rpctypes.EtcdError{code:0xe, desc:\"etcdserver: leader changed\"}: etcdserver: leader changed" logger="UnhandledError"`,
			r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1e6), 71+r.IntN(3))}
	}},
}

// plantedCorpus makes about n texts over runs of plantedJobs: background
// failures in every failed run (and a flake or two in passed ones), the
// Alerts test failing for one of twenty other alerts here and there, and
// each mode in a quarter of its jobs' failed runs. It gives each text, as
// it is made, to emit (when not nil) with its truth (a mode's index, or
// a negative label of its background kind), and returns the runs and each
// mode's runs. The same seed makes the same corpus, so that a benchmark
// can stream it twice rather than hold it.
func plantedCorpus(seed uint64, n int, emit func(Text, int)) ([]Run, []map[int]bool) {
	c := newBenchCorpus(seed, 3000)
	z := rand.NewZipf(c.r, 1.1, 4, uint64(len(c.failures)-1))
	r := c.r
	bgAlerts := []string{"KubePodNotReady", "TargetDown", "etcdMembersDown", "KubeContainerWaiting", "KubeDeploymentReplicasMismatch",
		"AlertmanagerFailedReload", "KubeDaemonSetRolloutStuck", "NodeClockNotSynchronising", "KubeJobFailed", "MCDDrainError",
		"KubeAPIDown", "ClusterNotUpgradeable", "InsightsDisabled", "KubeStatefulSetReplicasMismatch", "etcdHighFsyncDurations",
		"KubeletDown", "NodeNetworkInterfaceFlapping", "OVNKubernetesNodeOVSOverflowKernel", "SamplesImagestreamImportFailing", "PodDisruptionBudgetAtLimit"}
	modeRuns := make([]map[int]bool, len(plantedModes))
	for m := range modeRuns {
		modeRuns[m] = map[int]bool{}
	}
	var runs []Run
	texts := 0
	// A background text's truth is its kind (kinds that read the same
	// are one), or its own for a one-off.
	bg := func(kind int) int {
		if kind >= len(c.failures) {
			return -10_000_000 - texts
		}
		return -1 - c.same[kind]
	}
	add := func(t Text, label int) {
		t.Run = len(runs) - 1
		if emit != nil {
			emit(t, label)
		}
		texts++
	}
	for texts < n {
		j := r.IntN(len(plantedJobs))
		run := Run{Job: plantedJobs[j], BuildID: int64(len(runs)), Edge: plantedEdges[j/10], Failed: r.IntN(10) < 4}
		runs = append(runs, run)
		if !run.Failed {
			for range r.IntN(3) {
				text, kind := c.text(z)
				add(Text{Kind: KindJUnit, Test: benchTestNames[kind%len(benchTestNames)], Text: text}, bg(kind))
			}
			continue
		}
		for range 3 + r.IntN(6) {
			text, kind := c.text(z)
			add(Text{Kind: KindJUnit, Test: benchTestNames[kind%len(benchTestNames)], Text: text}, bg(kind))
		}
		if r.IntN(25) == 0 {
			a := r.IntN(len(bgAlerts))
			add(Text{Kind: KindJUnit, Test: alertsTest, Text: alertMessage(r, bgAlerts[a], "openshift-monitoring")}, -2_000_000-a)
		}
		for m, mode := range plantedModes {
			if slices.Contains(mode.jobs, j) && r.IntN(4) == 0 {
				modeRuns[m][len(runs)-1] = true
				for range 1 + r.IntN(2) {
					add(mode.text(r), m)
				}
			}
		}
	}
	return runs, modeRuns
}

// modeScore is how well the proposals found one mode: the rank of the
// proposal that covers its runs best (0: none), and that proposal's
// precision and recall on the mode's runs.
type modeScore struct {
	rank                 int
	precision, recall, f float64
}

// plantedScores scores the proposals: each mode's best proposal, by its
// runs.
func plantedScores(res Result, modeRuns []map[int]bool) []modeScore {
	scores := make([]modeScore, len(modeRuns))
	for m, want := range modeRuns {
		for i, p := range res.Proposals {
			tp := 0
			for _, ref := range p.Runs {
				if want[int(ref.BuildID)] {
					tp++
				}
			}
			if tp == 0 {
				continue
			}
			prec, rec := float64(tp)/float64(len(p.Runs)), float64(tp)/float64(len(want))
			if f := 2 * prec * rec / (prec + rec); f > scores[m].f {
				scores[m] = modeScore{i + 1, prec, rec, f}
			}
		}
	}
	return scores
}

// clusterOf is the cluster a text is in, as triage's clusters are read:
// that of its message's template (of its name's, for a test that failed
// without one), or its own alone (-1-i) when that template was left out.
func (c *Collector) clusterOf(i int, t Text) int {
	c.norm.reset()
	c.norm.text(prow.StripANSI(t.Text))
	byName := len(c.norm.out) == 0
	if byName {
		c.norm.reset()
		c.norm.text(t.Test)
	}
	if tp := c.templates[templateKey(t.Kind, byName, c.norm.out)]; tp != nil && tp.cluster > 0 {
		return int(tp.cluster)
	}
	return -1 - i
}

// bcubed is B-cubed precision and recall: for each text, the share of its
// cluster with its truth (precision) and of its truth in its cluster
// (recall), averaged.
func bcubed(pred, truth []int) (p, r float64) {
	type key struct{ pred, truth int }
	both, byPred, byTruth := map[key]int{}, map[int]int{}, map[int]int{}
	for i := range pred {
		both[key{pred[i], truth[i]}]++
		byPred[pred[i]]++
		byTruth[truth[i]]++
	}
	for i := range pred {
		n := float64(both[key{pred[i], truth[i]}])
		p += n / float64(byPred[pred[i]])
		r += n / float64(byTruth[truth[i]])
	}
	return p / float64(len(pred)), r / float64(len(pred))
}

// plantedRun is a planted corpus clustered and scored.
type plantedRun struct {
	n      int
	res    Result
	scores []modeScore
	// B-cubed precision and recall of the clusters over every text.
	bp, br float64
	took   time.Duration
	mem    testutil.MemStats
}

// runPlanted clusters a planted corpus of about n texts and scores it.
// The corpus is streamed into the collector as the command streams a
// database's texts, so that the peak heap is the collector's; took is the
// time spent in Add and Propose.
func runPlanted(t testing.TB, n int) plantedRun {
	runs, modeRuns := plantedCorpus(27, n, nil)
	pr := plantedRun{n: n}
	var col *Collector
	pr.mem = testutil.MemoryPeak(func() {
		col = New(runs, Options{})
		plantedCorpus(27, n, func(tx Text, _ int) {
			start := time.Now()
			col.Add(tx)
			pr.took += time.Since(start)
		})
		start := time.Now()
		var err error
		if pr.res, err = col.Propose(50); err != nil {
			t.Fatal(err)
		}
		pr.took += time.Since(start)
	})
	pr.scores = plantedScores(pr.res, modeRuns)
	var pred, truth []int
	plantedCorpus(27, n, func(tx Text, label int) {
		pred = append(pred, col.clusterOf(len(pred), tx))
		truth = append(truth, label)
	})
	pr.bp, pr.br = bcubed(pred, truth)
	return pr
}

func (pr plantedRun) log(t testing.TB) {
	t.Logf("%d texts: %d proposals, %d templates, %d clusters; B-cubed precision %.2f, recall %.2f; %s; %s", pr.n, len(pr.res.Proposals), pr.res.Stats.Templates, pr.res.Clusters, pr.bp, pr.br, pr.took.Round(time.Millisecond), pr.mem)
	for m, s := range pr.scores {
		t.Logf("  %-36s rank %3d  precision %.2f  recall %.2f", plantedModes[m].name, s.rank, s.precision, s.recall)
	}
}

// row is the run as a row of the table .ci/bench-suggest prints: texts,
// modes recovered whole in the first 50 proposals and their ranks, B-cubed
// precision and recall, time and peak heap.
func (pr plantedRun) row() string {
	lo, hi := 0, 0
	for _, s := range pr.scores {
		if s.rank > 0 && s.rank <= 50 && s.precision >= 0.9 && s.recall >= 0.9 {
			if lo == 0 || s.rank < lo {
				lo = s.rank
			}
			hi = max(hi, s.rank)
		}
	}
	return fmt.Sprintf("| %d | %d of %d, ranks %d-%d | %.2f | %.2f | %.1f s | %.0f MiB |",
		pr.n, recovered(pr.scores), len(pr.scores), lo, hi, pr.bp, pr.br, pr.took.Seconds(), float64(pr.mem.Heap)/(1<<20))
}

// recovered counts the modes found within the first 50 proposals with
// precision and recall of 0.9 or more.
func recovered(scores []modeScore) int {
	n := 0
	for _, s := range scores {
		if s.rank > 0 && s.rank <= 50 && s.precision >= 0.9 && s.recall >= 0.9 {
			n++
		}
	}
	return n
}

// TestPlantedModes10k: on 10,000 texts, every mode is recovered whole
// within the first 50 proposals, and the clusters' B-cubed precision and
// recall over every text are 0.8 or more (docs/PERFORMANCE.md has the
// figures at every size).
func TestPlantedModes10k(t *testing.T) {
	pr := runPlanted(t, 10_000)
	pr.log(t)
	if n := recovered(pr.scores); n < plantedFloor {
		t.Errorf("%d of %d modes recovered whole in the first 50 proposals, want %d or more", n, len(pr.scores), plantedFloor)
	}
	if s := pr.scores[0]; s.precision < 0.9 || s.recall < 0.9 {
		t.Errorf("the Alerts test's KubeAPIErrorBudgetBurn mode: precision %.2f, recall %.2f; want 0.9 or more", s.precision, s.recall)
	}
	if pr.bp < bcubedFloor || pr.br < bcubedFloor {
		t.Errorf("B-cubed precision %.2f, recall %.2f; want %.2f or more", pr.bp, pr.br, bcubedFloor)
	}
}

// bcubedFloor is the B-cubed precision and recall of the clusters the
// planted corpus must reach, triage's own on such texts being 0.7-0.8.
const bcubedFloor = 0.8

// plantedFloor is how many of the eight modes TestPlantedModes10k must
// recover: all of them since proposals are split by what a test's
// messages name and ranked by concentration.
const plantedFloor = 8

// BenchmarkPlantedModes clusters a planted corpus of PROWCRAWL_BENCH_TEXTS
// texts (10,000 by default; 100,000 and 1,000,000 are the other sizes
// measured) and reports the modes recovered, B-cubed precision and recall,
// and the peak heap; -v logs each mode.
func BenchmarkPlantedModes(b *testing.B) {
	n := 10_000
	if s := os.Getenv("PROWCRAWL_BENCH_TEXTS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 1 {
			b.Fatalf("PROWCRAWL_BENCH_TEXTS=%q", s)
		}
	}
	for b.Loop() {
		pr := runPlanted(b, n)
		pr.log(b)
		b.Log("row: " + pr.row())
		b.ReportMetric(float64(recovered(pr.scores)), "modes")
		b.ReportMetric(pr.bp, "bcubed-p")
		b.ReportMetric(pr.br, "bcubed-r")
		b.ReportMetric(float64(pr.mem.Heap)/(1<<20), "peak-heap-MiB")
	}
}
