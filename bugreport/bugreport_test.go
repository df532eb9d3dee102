package bugreport

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/classify"
)

// parsed reads a bug report of testdata and matches it with the built-in
// rules.
func parsed(t *testing.T, name string) (Text, Matched) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	text := Parse(string(b))
	m, err := Match(t.Context(), classify.Builtin(), text, time.Date(2020, 9, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	return text, m
}

// symptom is the symptom id of m, failing the test when m lacks it.
func symptom(t *testing.T, m Matched, id string) Symptom {
	t.Helper()
	for _, s := range m.Symptoms {
		if s.ID == id {
			return s
		}
	}
	var ids []string
	for _, s := range m.Symptoms {
		ids = append(ids, s.ID)
	}
	t.Fatalf("symptom %s not found; found %v", id, ids)
	return Symptom{}
}

func ids(m Matched) []string {
	var out []string
	for _, s := range m.Symptoms {
		out = append(out, s.ID)
	}
	return out
}

// TestSeedEtcd: seed 000 quotes apiserver klog lines (one cut before its
// header) and pastes `oc get clusterversion -o yaml`, whose wrapped
// message breaks its YAML.
func TestSeedEtcd(t *testing.T) {
	text, m := parsed(t, "000_174cb4b72d7579de.txt")
	if got, want := ids(m), []string{"etcd-connection-refused", "etcd-transport-closing", "upgrade-incomplete"}; !slices.Equal(got, want) {
		t.Fatalf("symptoms %v, want %v", got, want)
	}
	refused := symptom(t, m, "etcd-connection-refused")
	if len(refused.Lines) != 2 || !strings.Contains(refused.Lines[0], "dial tcp 10.0.61.114:2379: connect: connection refused") {
		t.Errorf("etcd-connection-refused lines %q", refused.Lines)
	}
	closing := symptom(t, m, "etcd-transport-closing")
	if !slices.Equal(closing.At, []int{115, 117, 119}) {
		t.Errorf("etcd-transport-closing at lines %v, want 115, 117, 119 (the first cut before its klog header)", closing.At)
	}
	d := text.Cluster
	if d == nil {
		t.Fatal("no clusterversion dump found")
	}
	if d.FromVersion != "4.4.18" || d.ToVersion != "4.4.0-0.nightly-2020-08-25-142845" || d.State != "Partial" {
		t.Errorf("dump %s -> %s %s, want 4.4.18 -> 4.4.0-0.nightly-2020-08-25-142845 Partial", d.FromVersion, d.ToVersion, d.State)
	}
	if e := dumpEdge(d).String(); e != "4.4 micro" {
		t.Errorf("dump's edge %q, want 4.4 micro", e)
	}
	incomplete := symptom(t, m, "upgrade-incomplete")
	if !slices.Equal(incomplete.At, []int{d.At}) || incomplete.Lines[0] != "state: Partial" {
		t.Errorf("upgrade-incomplete from %v %q, want the dump's history[0].state line", incomplete.At, incomplete.Lines)
	}
	for _, l := range text.Lines {
		if strings.Contains(l.Text, "platform/4.4") || strings.Contains(l.Text, "example:") {
			t.Errorf("line %d is no log line: %q", l.At, l.Text)
		}
	}
	if len(text.Links) != 0 {
		t.Errorf("links %v: the seed links bugs, not runs", text.Links)
	}
}

// TestSeedSDN: seed 002 quotes e2e monitor lines and links its run in
// the old prow.svc form.
func TestSeedSDN(t *testing.T) {
	text, m := parsed(t, "002_0a55aaa13493de37.txt")
	if got, want := ids(m), []string{"cni-default-network-missing", "pod-network-cross-node", "sdn-rollout-readiness-loss"}; !slices.Equal(got, want) {
		t.Fatalf("symptoms %v, want %v", got, want)
	}
	if cni := symptom(t, m, "cni-default-network-missing"); len(cni.Lines) != 7 {
		t.Errorf("cni-default-network-missing on %d lines, want the 7 Missing CNI default network lines", len(cni.Lines))
	}
	cross := symptom(t, m, "pod-network-cross-node")
	if len(cross.Lines) != 2 {
		t.Fatalf("pod-network-cross-node lines %q, want the two probe timeouts", cross.Lines)
	}
	for _, l := range cross.Lines {
		if !strings.Contains(l, "http://10.129.0.46:8080") && !strings.Contains(l, "https://10.129.0.43:8443") {
			t.Errorf("pod-network-cross-node line %q is no probe of a 10.129.0.x pod address", l)
		}
	}
	seq := symptom(t, m, "sdn-rollout-readiness-loss")
	if len(seq.Lines) < 2 || !strings.HasPrefix(seq.Lines[0], "Jan 12 20:58:46.230 I ns/openshift-sdn daemonset/sdn-controller Deleted pod") {
		t.Fatalf("sdn-rollout-readiness-loss lines %q, want the SDN pod deleted at 20:58:46 first", seq.Lines)
	}
	probe := seq.Lines[len(seq.Lines)-1]
	if !strings.Contains(probe, "Readiness probe failed") || strings.Contains(probe, "ns/openshift-sdn") || !strings.HasPrefix(probe, "Jan 12 20:58:4") {
		t.Errorf("sdn-rollout-readiness-loss ends with %q, want a readiness failure of another namespace 2-3 s later", probe)
	}
	if len(text.Links) != 1 {
		t.Fatalf("links %v, want the run", text.Links)
	}
	l := text.Links[0]
	if l.Bucket != "origin-ci-test" || l.Path != "logs/release-openshift-origin-installer-e2e-aws-upgrade/14098" ||
		l.Job != "release-openshift-origin-installer-e2e-aws-upgrade" || l.BuildID != 14098 ||
		!strings.HasPrefix(l.URL, "https://prow.svc.ci.openshift.org/view/gcs/origin-ci-test/") {
		t.Errorf("link %+v", l)
	}
	if len(m.Unmatched) == 0 {
		t.Fatal("every line matched: the node and machine lines match no rule")
	}
	if ps, err := Propose(t.Context(), classify.Builtin(), m.Unmatched); err != nil || len(ps) != 0 {
		t.Errorf("proposals %v, %v: the seed's other lines read as no failure", ps, err)
	}
}

// TestOtherShapes: bug texts as Jira and Bugzilla comments hold them:
// code blocks, quotations of an e-mail, lines cut at a column (with
// colour codes inside) or wrapped at blanks and indented, colour codes
// whose ESC was lost, event tables, links to a file of a run.
func TestOtherShapes(t *testing.T) {
	for _, tc := range []struct {
		file  string
		want  []string
		links []string // job/build of each run linked
		line  string   // a line that must be read whole
	}{
		{"jira_etcd_rollout.txt", []string{"etcd-connection-refused", "etcd-transport-closing"},
			[]string{"periodic-ci-openshift-release-master-ci-4.15-upgrade-from-stable-4.14-e2e-aws-ovn-upgrade/1722213402213847040"},
			`W1107 14:02:11.513870       1 clientconn.go:1331] [core] grpc: addrConn.createTransport failed to connect to {https://10.0.172.31:2379 10.0.172.31 <nil> 0 <nil>}. Err: connection error: desc = "transport: Error while dialing dial tcp 10.0.172.31:2379: connect: connection refused". Reconnecting...`},
		{"bugzilla_ovn_quoted.txt", []string{"cni-default-network-missing", "pod-network-cross-node", "sdn-rollout-readiness-loss"},
			[]string{"periodic-ci-openshift-release-master-nightly-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade/1720412203988385792",
				"periodic-ci-openshift-release-master-nightly-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade/1720049117416378368"},
			`Nov 03 09:41:31.447 W ns/openshift-oauth-apiserver pod/apiserver-7b9c6d4f8-m8kfz node/ip-10-0-140-22.us-west-2.compute.internal reason/Unhealthy Readiness probe failed: Get "https://10.130.0.22:8443/readyz": dial tcp 10.130.0.22:8443: i/o timeout`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			text, m := parsed(t, tc.file)
			if got := ids(m); !slices.Equal(got, tc.want) {
				t.Errorf("symptoms %v, want %v", got, tc.want)
			}
			var links []string
			for _, l := range text.Links {
				links = append(links, l.Job+"/"+strings.TrimPrefix(l.Path, "logs/"+l.Job+"/"))
			}
			if !slices.Equal(links, tc.links) {
				t.Errorf("links %v, want %v", links, tc.links)
			}
			found := false
			for _, l := range text.Lines {
				found = found || l.Text == tc.line
				if strings.ContainsAny(l.Text, "\x1b\ufffd") || strings.Contains(l.Text, "[0m") || strings.Contains(l.Text, "[31m") {
					t.Errorf("line %d keeps colour codes: %q", l.At, l.Text)
				}
			}
			if !found {
				t.Errorf("no line reads %q", tc.line)
			}
		})
	}
}

// TestLinks: every form of link to a run, or to a file in it, names the
// run; links to other pages do not.
func TestLinks(t *testing.T) {
	for _, tc := range []struct{ link, bucket, path string }{
		{"https://prow.ci.openshift.org/view/gs/test-platform-results/logs/periodic-ci-openshift-release-master-ci-4.14-e2e-aws-ovn-upgrade/1720412203988385792", "test-platform-results", "logs/periodic-ci-openshift-release-master-ci-4.14-e2e-aws-ovn-upgrade/1720412203988385792"},
		{"<https://prow.svc.ci.openshift.org/view/gcs/origin-ci-test/logs/release-openshift-origin-installer-e2e-aws-upgrade/14098>.", "origin-ci-test", "logs/release-openshift-origin-installer-e2e-aws-upgrade/14098"},
		{"[run](https://gcsweb-ci.apps.ci.l2s4.p1.openshiftapps.com/gcs/test-platform-results/pr-logs/pull/openshift_origin/28100/pull-ci-openshift-origin-master-e2e-aws-ovn-upgrade/1720000000000000000/artifacts/e2e/build-log.txt)", "test-platform-results", "pr-logs/pull/openshift_origin/28100/pull-ci-openshift-origin-master-e2e-aws-ovn-upgrade/1720000000000000000"},
		{"see gs://test-platform-results-public/logs/periodic-ci-x-upgrade/2026000000000000001/finished.json", "test-platform-results-public", "logs/periodic-ci-x-upgrade/2026000000000000001"},
		{"https://storage.googleapis.com/origin-ci-test/logs/release-openshift-origin-installer-e2e-aws-upgrade/9999/build-log.txt", "origin-ci-test", "logs/release-openshift-origin-installer-e2e-aws-upgrade/9999"},
		{"https://bugzilla.redhat.com/show_bug.cgi?id=1874385", "", ""},
		{"https://prow.ci.openshift.org/job-history/gs/origin-ci-test/logs/release-openshift-origin-installer-e2e-aws-upgrade", "", ""},
	} {
		got := Parse("text " + tc.link + " more\n").Links
		switch {
		case tc.bucket == "" && len(got) != 0:
			t.Errorf("%s: links %v, want none", tc.link, got)
		case tc.bucket != "" && (len(got) != 1 || got[0].Bucket != tc.bucket || got[0].Path != tc.path):
			t.Errorf("%s: links %+v, want %s %s", tc.link, got, tc.bucket, tc.path)
		}
	}
}

// TestColourResidue: what is left of a colour code without its ESC is
// removed; brackets that are text stay.
func TestColourResidue(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[31mE0902 boom\x1b[0m":   "E0902 boom",
		"[31mE0902 boom[0m":           "E0902 boom",
		"^[[1;31mE0902 boom^[[0m":     "E0902 boom",
		"\ufffd[33mwarn\ufffd[0m":     "warn",
		"waited [5m0s] for it":        "waited [5m0s] for it",
		"backoff [5m] then [10m]":     "backoff [5m] then [10m]",
		"array[0] matched [a-z]+ ok.": "array[0] matched [a-z]+ ok.",
	} {
		if got := stripColour(in); got != want {
			t.Errorf("stripColour(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestProposedRule: lines no rule matches are proposed as a rule that the
// rules validator accepts, that matches every quoted failure line and
// none of the bug's other lines.
func TestProposedRule(t *testing.T) {
	text, m := parsed(t, "mco_unmatched.txt")
	if len(m.Symptoms) != 0 {
		t.Fatalf("symptoms %v: no rule names machine-config's degradation", ids(m))
	}
	ps, err := Propose(t.Context(), classify.Builtin(), m.Unmatched)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 {
		t.Fatalf("%d proposals, want 1: %+v", len(ps), ps)
	}
	p := ps[0]
	if p.Source != SourceProposed || !slices.Equal(p.At, []int{3, 4}) {
		t.Errorf("proposal %s from lines %v, want the two Degraded lines 3 and 4", p.Source, p.At)
	}
	rule, err := Check(classify.Builtin(), p.Rule)
	if err != nil {
		t.Fatalf("the proposed rule does not load:\n%s\n%v", p.Rule, err)
	}
	if rule.ID != p.ID {
		t.Errorf("rule id %s, proposal %s", rule.ID, p.ID)
	}
	re := regexp.MustCompile(rule.Match[0].Lines.Any[0])
	for _, l := range text.Lines {
		want := strings.Contains(l.Text, "reason/RequiredPoolsFailed")
		if re.MatchString(l.Text) != want {
			t.Errorf("rule matches line %d %q: %v, want %v", l.At, l.Text, !want, want)
		}
	}
	for _, other := range []string{
		"Nov 14 20:31:29.000 - 1089s   E clusteroperator/network condition/Degraded reason/RolloutHung status/True DaemonSet \"/openshift-ovn-kubernetes/ovnkube-node\" rollout is not making progress",
		"Nov 14 20:40:02.000 I clusteroperator/machine-config condition/Progressing status/True Working towards 4.14.0-0.ci-2026-11-14-113555",
	} {
		if re.MatchString(other) {
			t.Errorf("the rule matches the unrelated line %q", other)
		}
	}
}

// TestClusterVersionShapes: the shapes of clusterversion people paste in
// public upgrade bugs besides `-o yaml`: the history list that `oc get
// clusterversion -o json | jq` prints bare, and, with no history, the
// progress line of `oc adm upgrade`. Either says the target and that the
// upgrade did not complete.
func TestClusterVersionShapes(t *testing.T) {
	for _, c := range []struct {
		file, from, to, line string
	}{
		{"jq_history_stuck.txt", "4.13.51", "4.14.0-0.ci-2026-11-14-113555", `"state": "Partial",`},
		{"adm_upgrade_progress.txt", "", "4.14.0-0.nightly-2026-11-12-034319", "info: An upgrade is in progress. Working towards 4.14.0-0.nightly-2026-11-12-034319: 4 of 863 done (0% complete)"},
	} {
		text, m := parsed(t, c.file)
		d := text.Cluster
		if d == nil {
			t.Errorf("%s: no clusterversion found", c.file)
			continue
		}
		if d.FromVersion != c.from || d.ToVersion != c.to || d.State != "Partial" {
			t.Errorf("%s: %q -> %q %s, want %q -> %q Partial", c.file, d.FromVersion, d.ToVersion, d.State, c.from, c.to)
		}
		if s := symptom(t, m, "upgrade-incomplete"); len(s.Lines) != 1 || s.Lines[0] != c.line {
			t.Errorf("%s: upgrade-incomplete from %q, want %q", c.file, s.Lines, c.line)
		}
	}
	_, m := parsed(t, "jq_history_stuck.txt")
	if s := symptom(t, m, "pod-network-cross-node"); len(s.Lines) != 1 || !strings.Contains(s.Lines[0], "dial tcp 10.130.2.17:8080: i/o timeout") {
		t.Errorf("pod-network-cross-node from %q", s.Lines)
	}
}
