package suggest

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"testing"
)

// TestModeWholeAtAnySize: one failure written with other hosts, IPv4 and
// IPv6 addresses (bracketed before the port, as Go prints them), pod and
// node names and times, twenty variants shuffled, is one template and one
// cluster at 200, 2,000 and 20,000 texts, and its rule matches every
// variant.
func TestModeWholeAtAnySize(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 20))
	variant := func() string {
		addr := ip(r) + ":6443"
		if r.IntN(2) == 0 {
			addr = "[" + ip6(r) + "]:6443"
		}
		return fmt.Sprintf(`E1201 %02d:%02d:%02d.%06d       1 reflector.go:%d] pod/kube-controller-manager-%s failed to list *v1.Pod: Get "https://api-int.ci-op-%s.aws-2.ci.openshift.org:6443/api/v1/pods?limit=500": dial tcp %s: connect: connection refused`,
			r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1e6), 100+r.IntN(90), node(r), k8sName(r, 8), addr)
	}
	variants := make([]string, 20)
	for i := range variants {
		variants[i] = variant()
	}
	for _, n := range []int{200, 2_000, 20_000} {
		// As many passed runs as failed ones, none with it: the contrast
		// a proposal needs.
		runs := make([]Run, n)
		for i := range runs {
			runs[i] = Run{Job: "periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade", BuildID: int64(i), Edge: "4.13->4.14 minor", Failed: i < n/2}
		}
		col := New(runs, Options{})
		for _, i := range r.Perm(n) {
			col.Add(Text{Run: i % (n / 2), Kind: KindLog, File: "artifacts/e2e-aws-ovn-upgrade/gather-extra/artifacts/pods/openshift-kube-controller-manager_kcm_kube-controller-manager.log",
				Text: variants[i%len(variants)]})
		}
		res, err := col.Propose(0)
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats.Templates != 1 || res.Clusters != 1 {
			t.Errorf("%d texts: %d templates, %d clusters; want one of each", n, res.Stats.Templates, res.Clusters)
		}
		if len(res.Proposals) == 0 {
			t.Errorf("%d texts: no proposal", n)
			continue
		}
		re := regexp.MustCompile(res.Proposals[0].Pattern)
		for _, v := range variants {
			if !re.MatchString(v) {
				t.Errorf("%d texts: the rule %s does not match %s", n, re, v)
			}
		}
	}
}
