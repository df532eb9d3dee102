package suggest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// word is a random word of letters, which no normaliser can tell from a
// word of the language: the part of a text that makes each one a template
// of its own.
func word(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = "aeioubcdfglmnprstv"[r.IntN(18)]
	}
	return string(b)
}

// TestCapKeepsLargestModes: with more distinct templates than the bound,
// a mode whose every text is a template of its own (it names a member by a
// word) is still proposed, whole, and the counts say what was left out.
func TestCapKeepsLargestModes(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 27))
	var runs []Run
	var texts []Text
	want := map[int64]bool{}
	for i := range 3000 {
		run := Run{Job: fmt.Sprintf("periodic-ci-openshift-release-master-ci-4.14-e2e-aws-ovn-upgrade-%d", i%20), BuildID: int64(i), Edge: "4.14 micro", Failed: i%5 < 2}
		runs = append(runs, run)
		if !run.Failed {
			continue
		}
		// Three one-off failures a run: distinct templates, more than
		// the bound holds.
		for range 3 {
			texts = append(texts, Text{Run: i, Kind: KindLog, File: "artifacts/e2e-aws-ovn-upgrade/openshift-e2e-test/build-log.txt",
				Text: fmt.Sprintf("%s %s %s failed: %s", word(r, 7), word(r, 6), word(r, 8), word(r, 9))})
		}
		if i%20 < 2 && r.IntN(2) == 0 {
			want[int64(i)] = true
			texts = append(texts, Text{Run: i, Kind: KindLog, File: "artifacts/e2e-aws-ovn-upgrade/openshift-e2e-test/build-log.txt",
				Text: "the etcd operator removed member from the quorum while the upgrade rolled out: " + word(r, 10)})
		}
	}
	res := propose(t, runs, texts, Options{MaxTemplates: 1000}, 20)
	st := res.Stats
	if st.Dropped == 0 || st.DroppedTexts == 0 || st.DroppedBelow < 2 || st.Merged == 0 {
		t.Errorf("stats %+v: want templates dropped, their texts, the floor, and templates merged", st)
	}
	if !coversExactly(res, want) {
		logProposals(t, res)
		t.Errorf("no proposal covers the %d runs of the mode whose texts are each a template", len(want))
	}
}

// TestRuleFromTheLineThatTellsApart: a mode whose Ginkgo message begins
// with the generic line of hundreds of other failures ("Unexpected
// error:") is proposed by its own line (ImagePullBackOff), whose rule
// finds its runs and no others, not by the first line, whose rule would
// find them all.
func TestRuleFromTheLineThatTellsApart(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 240))
	var runs []Run
	var texts []Text
	want := map[int64]bool{}
	for i := range 900 {
		run := Run{Job: fmt.Sprintf("periodic-ci-openshift-release-master-nightly-4.14-e2e-aws-sdn-upgrade-%d", i%10), BuildID: int64(i), Edge: "4.14 micro", Failed: i%3 != 0}
		runs = append(runs, run)
		if !run.Failed {
			continue
		}
		head := fmt.Sprintf("fail [k8s.io/kubernetes/test/e2e/framework/pod/pod_client.go:%d]: Unexpected error:\n    <*errors.errorString | 0xc%09x>: \n", 100+r.IntN(20), r.IntN(1<<30))
		switch {
		case i%10 == 3 && len(want) < 12:
			want[int64(i)] = true
			texts = append(texts, Text{Run: i, Kind: KindJUnit, Test: "[sig-node] Pods should be submitted and removed [NodeConformance] [Conformance]",
				Text: head + fmt.Sprintf("    pod \"pod-submit-remove-%s\" failed to start: ImagePullBackOff: Back-off pulling image \"registry.k8s.io/e2e-test-images/agnhost:2.43\"\noccurred", k8sName(r, 5))})
		case r.IntN(2) == 0:
			// The same head, another failure, in other tests.
			texts = append(texts, Text{Run: i, Kind: KindJUnit, Test: fmt.Sprintf("[sig-storage] In-tree Volumes [Driver: local] volumes should store data %d", r.IntN(40)),
				Text: head + fmt.Sprintf("    pod \"pvc-tester-%s\" did not become ready: timed out waiting for the condition\noccurred", k8sName(r, 5))})
		}
	}
	if res := propose(t, runs, texts, Options{}, 0); !coversExactly(res, want) {
		logProposals(t, res)
		t.Errorf("no proposal covers exactly the %d ImagePullBackOff runs", len(want))
	}
}

// TestJobNamingMessageRanksAsSpread: ci-operator's "\"STEP\" test steps
// failed", and its "could not watch pod" of a step's pod (TARGET-STEP),
// are concentrated in one job only because they name that job's step:
// they rank below a failure concentrated in a job for a reason.
func TestJobNamingMessageRanksAsSpread(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 1))
	steps := []string{"e2e-aws-ovn-upgrade", "e2e-gcp-sdn-upgrade", "e2e-azure-ovn-upgrade", "e2e-metal-ipi-upgrade-ovn-ipv6"}
	var runs []Run
	var texts []Text
	for i := range 400 {
		step := steps[i%len(steps)]
		run := Run{Job: "periodic-ci-openshift-release-master-nightly-4.14-" + step, BuildID: int64(i), Edge: "4.14 micro", Failed: r.IntN(10) < 4}
		runs = append(runs, run)
		if !run.Failed {
			continue
		}
		texts = append(texts, Text{Run: i, Kind: KindJUnit, Test: "Run multi-stage test test phase", Text: fmt.Sprintf("%q test steps failed", step)})
		if step == steps[1] && r.IntN(4) != 0 {
			// Its step's pod, named after the job's target, failed in
			// most failed runs of that job alone.
			texts = append(texts, Text{Run: i, Kind: KindJUnit, Test: "Run multi-stage test " + step + " - " + step + "-openshift-e2e-test container test",
				Text: fmt.Sprintf("could not watch pod: the pod ci-op-%s/%s-openshift-e2e-test failed after 1h%dm%ds (failed containers: test): ContainerFailed one or more containers exited", k8sName(r, 8), step, r.IntN(60), r.IntN(60))})
		}
		if step == steps[1] && r.IntN(2) == 0 {
			texts = append(texts, Text{Run: i, Kind: KindJUnit, Test: "[sig-network] services should work after the upgrade",
				Text: fmt.Sprintf("fail [github.com/openshift/origin/test/extended/networking/services.go:%d]: service e2e-svc-%s lost its endpoints for %ds during the SDN rollout", 80+r.IntN(5), k8sName(r, 5), 5+r.IntN(60))})
		}
	}
	res := propose(t, runs, texts, Options{}, 0)
	if len(res.Proposals) == 0 {
		t.Fatal("no proposals")
	}
	for i, p := range res.Proposals {
		t.Logf("%d %s: %d runs", i+1, p.Title, len(p.Runs))
	}
	top := res.Proposals[0]
	if !strings.Contains(top.Pattern, "lost its endpoints") {
		t.Fatalf("top proposal %q, want the service losing its endpoints: a step's own name is no concentration", top.Title)
	}
	// It says where it is concentrated: the one job, all its runs there.
	if cz := top.Concentrated; cz == nil || len(cz.Jobs) != 1 || cz.Jobs[0] != "periodic-ci-openshift-release-master-nightly-4.14-"+steps[1] ||
		cz.In != len(top.Runs) || cz.Out != 0 || cz.InOf <= cz.In || cz.PValue >= 0.05 {
		t.Errorf("top proposal concentrated %+v, want in the %s job only, %d runs there, none elsewhere", cz, steps[1], len(top.Runs))
	}
	for _, p := range res.Proposals[1:] {
		if p.Concentrated != nil {
			t.Errorf("%s: concentrated %+v; a step's own name is no concentration", p.Title, p.Concentrated)
		}
	}
}
