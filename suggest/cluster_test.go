package suggest

import (
	"fmt"
	"testing"
)

// TestSlotSplitsKinds: messages of one shape that name other namespaces
// (words many messages hold) are as many failures, while one failure
// written two ways (a phrase dropped) or with a word only it holds (a name
// the normaliser does not know) stays one cluster.
func TestSlotSplitsKinds(t *testing.T) {
	namespaces := []string{"etcd", "dns", "console", "monitoring"}
	var runs []Run
	var texts []Text
	// Which texts must share a cluster: by group.
	var group []string
	add := func(g string, tx Text) {
		runs = append(runs, Run{Job: "periodic-ci-openshift-release-master-nightly-4.14-e2e-aws-ovn-upgrade", BuildID: int64(len(runs)), Edge: "4.14 micro", Failed: true})
		tx.Run = len(runs) - 1
		texts = append(texts, tx)
		group = append(group, g)
	}
	for i := range 40 {
		ns := namespaces[i%len(namespaces)]
		add("refused "+ns, Text{Kind: KindJUnit, Test: "[sig-api-machinery] API is reachable", Text: fmt.Sprintf(
			`Get "https://10.0.%d.%d:6443/api/v1/namespaces/openshift-%s/pods": dial tcp 10.0.%d.%d:6443: connect: connection refused`, i, i+1, ns, i, i+1)})
		// The namespaces are vocabulary: other messages name them too.
		add("degraded "+ns, Text{Kind: KindJUnit, Test: "[sig-arch] operators stay available", Text: fmt.Sprintf("clusteroperator %s in openshift-%s is Degraded=True for %ds", ns, ns, 30+i)})
		add("ready "+ns, Text{Kind: KindJUnit, Test: "[sig-node] pods become ready", Text: fmt.Sprintf("pod openshift-%s/%s-%d did not become ready within 5m0s", ns, ns, i)})
		// One failure written two ways, and with canary pods of names
		// the normaliser does not know, each of which only it holds.
		lease := fmt.Sprintf("router pod router-default-7d9f8c6b5-x2x7k lost its lease to the ingress canary %s after %ds", []string{"zebrafish", "okapi", "narwhal", "axolotl"}[i%4], 30+i)
		if i%3 == 1 {
			lease = fmt.Sprintf("router pod router-default-7d9f8c6b5-x2x7k lost its lease after %ds", 30+i)
		}
		add("lease", Text{Kind: KindJUnit, Test: "[sig-network-edge] router keeps its lease", Text: lease})
	}
	col := New(runs, Options{})
	for _, tx := range texts {
		col.Add(tx)
	}
	if _, err := col.Propose(0); err != nil {
		t.Fatal(err)
	}
	clusterOf := map[string]int{}
	groupOf := map[int]string{}
	for i, tx := range texts {
		cl := col.clusterOf(i, tx)
		if cl < 0 {
			t.Fatalf("%q is in no cluster", tx.Text)
		}
		if c, ok := clusterOf[group[i]]; ok && c != cl {
			t.Errorf("%s: %q is in cluster %d, the group's other texts in %d", group[i], tx.Text, cl, c)
		}
		clusterOf[group[i]] = cl
		if g, ok := groupOf[cl]; ok && g != group[i] {
			t.Errorf("cluster %d holds %s and %s", cl, g, group[i])
		}
		groupOf[cl] = group[i]
	}
	if len(clusterOf) != 3*len(namespaces)+1 {
		t.Errorf("%d groups in clusters of their own, want %d", len(clusterOf), 3*len(namespaces)+1)
	}
}
