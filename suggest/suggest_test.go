package suggest

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/openshift-eng/prowcrawl/classify"
)

// corpus is a generated set of runs and failure texts: noise that fails
// and passes alike, a wrapper message in every failed run, and a planted
// failure mode no rule covers, in three wordings, in failed runs of one
// edge and in two passed runs.
type corpus struct {
	runs    []Run
	texts   []Text
	planted map[int]bool
}

var plantedWordings = []string{
	`fail [github.com/openshift/origin/test/extended/router/metrics.go:%d]: Unexpected error: router pod router-default-%s-%s on node ip-10-0-%d-%d.ec2.internal lost its lease to ingress-canary after %ds`,
	`fail [github.com/openshift/origin/test/extended/router/metrics.go:%d]: Unexpected error: router pod router-default-%s-%s on node ip-10-0-%d-%d.ec2.internal lost its lease to the ingress canary after %ds`,
	`fail [github.com/openshift/origin/test/extended/router/metrics.go:%d]: Unexpected error: router pod router-default-%s-%s on node ip-10-0-%d-%d.us-east-2.compute.internal lost its lease after %ds`,
}

var noise = []string{
	"fail [k8s.io/kubernetes/test/e2e/network/dns_common.go:%d]: Unexpected error:\n    <*errors.errorString | 0xc%09x>: \n    timed out waiting for the condition\noccurred",
	"fail [k8s.io/kubernetes/test/e2e/storage/framework/volume_resource.go:252]: PersistentVolumeClaims [pvc-%s] not all in phase Bound within 5m0s",
	"fail [github.com/openshift/origin/test/extended/etcd/leader_changes.go:57]: Leader changes observed during test run: %d",
	"1 failures to create the sandbox",
	"fail [k8s.io/kubernetes/test/e2e/network/conntrack.go:277]: Failed to connect to backend %d",
	`fail [k8s.io/kubernetes/test/e2e/apps/deployment.go:882]: error waiting for deployment "test-rollover-deployment" status to match expectation: timed out after %ds`,
}

func k8sName(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = k8sAlphabet[r.IntN(len(k8sAlphabet))]
	}
	return string(b)
}

func genCorpus(seed uint64, nRuns int) corpus {
	r := rand.New(rand.NewPCG(seed, 15))
	edges := []string{"4.13->4.14 minor", "4.12->4.13 minor", "4.14 micro"}
	c := corpus{planted: make(map[int]bool)}
	passedPlanted := 0
	for i := range nRuns {
		e := edges[i%len(edges)]
		run := Run{Job: "periodic-" + strings.ReplaceAll(strings.Fields(e)[0], ">", "") + "-upgrade", BuildID: int64(1_700_000_000_000_000_000 + i), Edge: e}
		run.Failed = r.Float64() < 0.45
		run.Explained = run.Failed && r.Float64() < 0.4
		c.runs = append(c.runs, run)
		add := func(s string) { c.texts = append(c.texts, Text{Run: i, Kind: KindJUnit, Test: "t", Text: s}) }
		for _, n := range noise {
			if r.Float64() < 0.06 || (run.Failed && r.Float64() < 0.04) {
				if n = strings.ReplaceAll(n, "%s", k8sName(r, 5)); strings.Contains(n, "%") {
					n = fmt.Sprintf(n, r.IntN(900)+100)
				}
				add(n)
			}
		}
		plant := (run.Failed && e == edges[0] && r.Float64() < 0.6) || (!run.Failed && passedPlanted < 2 && r.Float64() < 0.02)
		if plant {
			if !run.Failed {
				passedPlanted++
			}
			c.planted[i] = true
			w := plantedWordings[r.IntN(len(plantedWordings))]
			add(fmt.Sprintf(w, 40+r.IntN(3), k8sName(r, 10), k8sName(r, 5), r.IntN(255), r.IntN(255), r.IntN(300)))
		}
		if run.Failed {
			add(fmt.Sprintf("could not watch pod: the pod ci-op-%s/e2e-aws-ovn-upgrade-openshift-e2e-test failed after 1h%dm%ds (failed containers: test): ContainerFailed one or more containers exited", k8sName(r, 8), r.IntN(60), r.IntN(60)))
		}
	}
	return c
}

func proposeAll(t *testing.T, c corpus, opts Options) Result {
	t.Helper()
	col := New(c.runs, opts)
	for _, tx := range c.texts {
		col.Add(tx)
	}
	res, err := col.Propose(10)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestPlanted: the top proposal is the planted failure mode, with 95 %
// precision and recall, and its rule, run by classify's engine over JUnit
// lines as a file writes them, finds it.
func TestPlanted(t *testing.T) {
	c := genCorpus(1, 600)
	res := proposeAll(t, c, Options{})
	if len(res.Proposals) == 0 {
		t.Fatalf("no proposals; %+v", res)
	}
	for i, p := range res.Proposals {
		t.Logf("%d %s generic=%v p=%.3g score=%.3g f=%d/%d u=%d p=%d/%d %s", i, p.ID, p.Generic, p.P, p.score, p.Failed, p.FailedTotal, p.Unexplained, p.Passed, p.PassedTotal, p.Pattern)
	}
	top := res.Proposals[0]
	tp := 0
	for _, ref := range top.Runs {
		i := int(ref.BuildID - 1_700_000_000_000_000_000)
		if c.planted[i] {
			tp++
		}
	}
	precision, recall := float64(tp)/float64(len(top.Runs)), float64(tp)/float64(len(c.planted))
	if precision < 0.95 || recall < 0.95 {
		t.Errorf("top proposal %s: precision %.2f, recall %.2f over %d planted runs", top.ID, precision, recall, len(c.planted))
	}
	if top.Edge != "4.13->4.14 minor" {
		t.Errorf("top proposal not concentrated on the planted edge: %q %+v", top.Edge, top.Edges)
	}
	rules, err := classify.ParseRules("proposed.yaml", RulesFile(res.Proposals))
	if err != nil {
		t.Fatalf("the proposals are not a valid rules file: %v\n%s", err, RulesFile(res.Proposals))
	}
	eng, err := classify.NewEngine(rules)
	if err != nil {
		t.Fatal(err)
	}
	// Each planted text, written as a JUnit file writes a failure.
	for _, tx := range c.texts {
		if !c.planted[tx.Run] || !strings.Contains(tx.Text, "lost its lease") {
			continue
		}
		xml := `<testcase name="t"><failure message="` + xmlEscape(tx.Text) + `">` + xmlEscape(tx.Text) + "</failure></testcase>\n"
		s := eng.Begin(classify.RunInfo{})
		if err := s.File(t.Context(), "artifacts/e2e/junit/junit_e2e.xml", strings.NewReader(xml)); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, m := range s.Matches() {
			found = found || m.Symptom == top.ID
		}
		if !found {
			t.Errorf("the rule %s misses %q", top.Pattern, xml)
		}
	}
}

func xmlEscape(s string) string {
	return strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&#34;", "'", "&#39;", "\n", "&#xA;").Replace(s)
}

// TestDeterministic: the same texts, in another order within each run,
// give the same proposals.
func TestDeterministic(t *testing.T) {
	c := genCorpus(2, 400)
	a := proposeAll(t, c, Options{})
	shuffled := slices.Clone(c.texts)
	r := rand.New(rand.NewPCG(9, 9))
	// Shuffle within each run: texts come run by run.
	for lo := 0; lo < len(shuffled); {
		hi := lo
		for hi < len(shuffled) && shuffled[hi].Run == shuffled[lo].Run {
			hi++
		}
		r.Shuffle(hi-lo, func(i, j int) { shuffled[lo+i], shuffled[lo+j] = shuffled[lo+j], shuffled[lo+i] })
		lo = hi
	}
	c.texts = shuffled
	b := proposeAll(t, c, Options{})
	if len(a.Proposals) == 0 || !reflect.DeepEqual(RulesFile(a.Proposals), RulesFile(b.Proposals)) {
		t.Errorf("proposals differ:\n%s\n---\n%s", RulesFile(a.Proposals), RulesFile(b.Proposals))
	}
}

// TestRanksUnexplained: what no rule explains ranks first. A log line
// that comes with a symptom already found (in nearly every failed run a
// symptom explains, in a few others, and rarely in passed runs) is far
// more frequent in failed than in passed runs, but explains little that is
// new: it ranks below the failure no rule names, if at all. A failed test's message that no active rule matches is
// unexplained in every failed run, those a symptom explains too; one that
// a built-in rule matches is not, and is not proposed.
func TestRanksUnexplained(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 15))
	var runs []Run
	var texts []Text
	opened := map[int]bool{}
	for i := range 300 {
		run := Run{Job: "periodic-upgrade", BuildID: int64(i), Edge: "4.13->4.14 minor", Failed: r.Float64() < 0.4}
		run.Explained = run.Failed && r.Float64() < 0.6
		runs = append(runs, run)
		add := func(k Kind, file, s string) {
			texts = append(texts, Text{Run: i, Kind: k, Test: "t", File: file, Text: s})
		}
		if (run.Explained && r.Float64() < 0.9) || (run.Failed && !run.Explained && r.Float64() < 0.1) || (!run.Failed && r.Float64() < 0.03) {
			add(KindLog, "artifacts/e2e/openshift-e2e-test/build-log.txt", fmt.Sprintf("E1201 09:%02d:%02d.000000       1 watcher.go:%d] etcd watch channel for /kubernetes.io/pods closed unexpectedly after %ds", r.IntN(60), r.IntN(60), 100+r.IntN(50), r.IntN(300)))
		}
		if run.Explained && r.Float64() < 0.8 {
			add(KindJUnit, "", fmt.Sprintf("fail [k8s.io/kubernetes/test/e2e/apimachinery/etcd.go:%d]: Unexpected error: dial tcp 10.0.%d.%d:2379: connect: connection refused", 40+r.IntN(9), r.IntN(255), r.IntN(255)))
		}
		if run.Failed && r.Float64() < 0.5 {
			opened[i] = true
			texts = append(texts, Text{Run: i, Kind: KindJUnit, Test: "[sig-network-edge] router keeps its lease through the upgrade",
				Text: fmt.Sprintf(plantedWordings[r.IntN(len(plantedWordings))], 40+r.IntN(3), k8sName(r, 10), k8sName(r, 5), r.IntN(255), r.IntN(255), r.IntN(300))})
		}
	}
	eng, err := classify.NewEngine(classify.Builtin())
	if err != nil {
		t.Fatal(err)
	}
	col := New(runs, Options{Rules: eng})
	for _, tx := range texts {
		col.Add(tx)
	}
	res, err := col.Propose(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Proposals) == 0 {
		t.Fatal("no proposals")
	}
	for i, p := range res.Proposals {
		t.Logf("%d %s %s f=%d u=%d/%d p=%d p=%.2g", i, p.ID, p.Kind, p.Failed, p.Unexplained, p.UnexplTotal, p.Passed, p.P)
		if strings.Contains(p.Pattern, "2379") {
			t.Errorf("proposal #%d %s is a failure a built-in rule names: %s", i+1, p.ID, p.Pattern)
		}
	}
	top := res.Proposals[0]
	if !strings.Contains(top.Pattern, "lost its lease") {
		t.Fatalf("top proposal %s is not the failure no rule names: %s", top.ID, top.Pattern)
	}
	// Its unexplained runs are every failed run it is in, explained or not.
	if top.Unexplained != len(opened) || top.UnexplTotal != top.FailedTotal || top.Failed != len(opened) {
		t.Errorf("top proposal counts %d unexplained of %d (%d failed of %d); want %d of every failed run",
			top.Unexplained, top.UnexplTotal, top.Failed, top.FailedTotal, len(opened))
	}
}

// TestHostileTextNeverStopsPropose: failure texts that hold a C1 control
// or a bidirectional override (bytes from a bucket) give proposals whose
// rules load, or are left out and counted; Propose never fails on them.
// Before, one such proposal failed the whole of suggest.
func TestHostileTextNeverStopsPropose(t *testing.T) {
	var runs []Run
	var texts []Text
	for i := range 60 {
		run := Run{Job: "periodic-upgrade", BuildID: int64(i), Edge: "4.13->4.14 minor", Failed: i%2 == 0}
		runs = append(runs, run)
		if run.Failed {
			texts = append(texts, Text{Run: i, Kind: KindLog, File: "build-log.txt",
				Text: fmt.Sprintf("E1201 09:00:%02d.000000 1 x.go:1] router \u009b31m lost \u202e its lease %d", i%60, i)})
		}
	}
	col := New(runs, Options{})
	for _, tx := range texts {
		col.Add(tx)
	}
	res, err := col.Propose(0)
	if err != nil {
		t.Fatalf("Propose: %v", err)
	}
	for _, p := range res.Proposals {
		if _, err := classify.ParseRules("p", []byte("symptoms:\n"+p.Rule)); err != nil {
			t.Errorf("proposal %s does not load: %v", p.ID, err)
		}
	}
	if len(res.Proposals)+res.Unusable == 0 {
		t.Error("the planted failure was neither proposed nor counted as unusable")
	}
}

// TestLongTitlesTwoProposals: two failure modes whose common lines share
// their first 96 characters (their titles, cut there, read the same) and
// differ after them are two proposals, each covering its own runs.
func TestLongTitlesTwoProposals(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 15))
	const prefix = "fail [github.com/openshift/origin/test/extended/apiserver/graceful_termination.go:%d]: Unexpected error: the kube-apiserver on node ip-10-0-%d-%d.ec2.internal "
	modes := []string{prefix + "dropped %d watch connections before its termination grace period ended: clients saw their watches reset by peer and relisted every resource from scratch, retrying",
		prefix + "was still answering readyz as OK for %d s while the etcd client it used had already closed all its connections to the members during the etcd rollout of the upgrade"}
	var runs []Run
	var texts []Text
	want := [2]map[int64]bool{{}, {}}
	for i := range 240 {
		run := Run{Job: "periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade", BuildID: int64(i), Edge: "4.13->4.14 minor", Failed: r.Float64() < 0.5}
		runs = append(runs, run)
		if run.Failed && r.Float64() < 0.6 {
			m := i % 2
			want[m][int64(i)] = true
			texts = append(texts, Text{Run: i, Kind: KindJUnit, Test: "[sig-api-machinery] kube-apiserver terminates gracefully",
				Text: fmt.Sprintf(modes[m], 100+r.IntN(50), r.IntN(255), r.IntN(255), 1+r.IntN(40))})
		}
	}
	if a, b := fmt.Sprintf(modes[0], 1, 2, 3, 4)[:96], fmt.Sprintf(modes[1], 1, 2, 3, 4)[:96]; a != b {
		t.Fatalf("the modes do not share their first 96 characters:\n%q\n%q", a, b)
	}
	col := New(runs, Options{})
	for _, tx := range texts {
		col.Add(tx)
	}
	res, err := col.Propose(0)
	if err != nil {
		t.Fatal(err)
	}
	found := [2]bool{}
	for _, p := range res.Proposals {
		for m := range modes {
			got := map[int64]bool{}
			for _, ref := range p.Runs {
				got[ref.BuildID] = true
			}
			if reflect.DeepEqual(got, want[m]) {
				found[m] = true
			}
		}
	}
	if !found[0] || !found[1] {
		for _, p := range res.Proposals {
			t.Logf("%s %d runs: %s", p.ID, len(p.Runs), p.Pattern)
		}
		t.Errorf("proposals for the two modes found %v, want both, each with its own runs", found)
	}
}
