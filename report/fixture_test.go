package report

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/db"
)

// The fixture is a database written as a crawl writes one (db.Write,
// db.SyncSymptoms) and analysed with a fixed now, with a known answer for
// every verdict. It does not depend on the crawler or the sample bucket, so
// that the golden files change only when the report does.

// fixtureNow ends the fixture's history: the analysis's "now".
var fixtureNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// fixtureSymptoms are the built-in symptoms, as a crawl records them.
var fixtureSymptoms = []db.Symptom{
	{ID: "api-unavailable-during-upgrade", Title: "API unavailable during the upgrade", Source: "builtin",
		Description: "A test that watches the Kubernetes, OpenShift or OAuth API through the upgrade failed."},
	{ID: "cni-default-network-missing", Title: "node network plugin not ready (Missing CNI default network)", Source: "builtin",
		Bug:         "https://bugzilla.redhat.com/show_bug.cgi?id=1791117",
		Description: "The kubelet reported the node's runtime network not ready: the CNI plugin's configuration was gone."},
	{ID: "etcd-connection-refused", Title: "etcd refused client connections", Source: "builtin",
		Bug:         "https://bugzilla.redhat.com/show_bug.cgi?id=1874385",
		Description: "A client of etcd dialed an etcd member on its client port 2379 and the connection was refused."},
	{ID: "etcd-transport-closing", Title: "gRPC connections to etcd torn down (transport is closing)", Source: "builtin",
		Bug:         "https://bugzilla.redhat.com/show_bug.cgi?id=1874385",
		Description: "gRPC connections from the API servers to etcd were closed under them."},
	{ID: "pod-network-cross-node", Title: "pod-to-pod traffic across nodes broken", Source: "builtin",
		Bug:         "https://bugzilla.redhat.com/show_bug.cgi?id=1868392",
		Description: "Connections to pod-network addresses timed out or found no route: traffic between pods on different nodes was broken, readiness probes fail and services lose endpoints."},
	{ID: "sdn-rollout-readiness-loss", Title: "readiness probes failed right after an SDN/OVN pod restart", Source: "builtin",
		Bug:         "https://bugzilla.redhat.com/show_bug.cgi?id=1791117",
		Description: "An SDN or OVN-Kubernetes pod restarted, and within 30 seconds a readiness probe in another namespace failed."},
	{ID: "upgrade-incomplete", Title: "upgrade did not complete", Source: "builtin",
		Description: "The cluster never finished updating: clusterversion's newest history entry is still Partial."},
}

// evidence is what each symptom's first evidence looks like: the file in
// the run, its line, and the line.
var evidence = map[string]struct {
	file    string
	line    int
	excerpt string
}{
	"api-unavailable-during-upgrade": {"artifacts/e2e/openshift-e2e-test/artifacts/junit/junit_e2e.xml", 0,
		"[sig-api-machinery] Kubernetes APIs remain available for new connections: API was unreachable during disruption for at least 1m12s of 58m"},
	"cni-default-network-missing": {"artifacts/e2e/openshift-e2e-test/build-log.txt", 812,
		"W ns/openshift-controller-manager pod/controller-manager-g9tkl network is not ready: runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: Missing CNI default network"},
	"etcd-connection-refused": {"artifacts/e2e/gather-extra/artifacts/pods/openshift-kube-apiserver_kube-apiserver-ip-10-0-61-114_kube-apiserver.log", 311,
		`W0902 08:18:41.941578 1 clientconn.go:1120] grpc: addrConn.createTransport failed to connect to {https://10.0.61.114:2379 0 <nil>}. Err :connection error: desc = "transport: Error while dialing dial tcp 10.0.61.114:2379: connect: connection refused". Reconnecting...`},
	"etcd-transport-closing": {"artifacts/e2e/gather-extra/artifacts/pods/openshift-kube-apiserver_kube-apiserver-ip-10-0-61-114_kube-apiserver.log", 312,
		`I0902 08:18:41.943152 1 controlbuf.go:508] transport: loopyWriter.run returning. connection error: desc = "transport is closing"`},
	"pod-network-cross-node": {"artifacts/e2e/openshift-e2e-test/build-log.txt", 4182,
		`W ns/openshift-apiserver pod/apiserver-7d9f node/ip-10-0-28-28 reason/ReadinessFailed Get "https://10.128.6.85:8443/healthz": dial tcp 10.128.6.85:8443: i/o timeout`},
	"sdn-rollout-readiness-loss": {"artifacts/e2e/openshift-e2e-test/build-log.txt", 2710,
		"W ns/openshift-apiserver pod/apiserver-zg25k Readiness probe failed: Get https://10.129.0.43:8443/healthz: net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)"},
	"upgrade-incomplete": {"artifacts/e2e/gather-extra/artifacts/clusterversion.json", 0,
		"history[0] 4.14.0-0.nightly-2026-11-20-101010 is Partial"},
}

// fixtureJob is a periodic upgrade job as the crawler names and parses it.
func fixtureJob(from, to, kind, platform, network string) prowcrawl.Job {
	name := fmt.Sprintf("periodic-ci-openshift-release-master-ci-%s-upgrade-from-stable-%s-e2e-%s-%s-upgrade", to, from, platform, network)
	if from == to {
		name = fmt.Sprintf("periodic-ci-openshift-release-master-nightly-%s-e2e-%s-%s-upgrade", to, platform, network)
	}
	return prowcrawl.Job{Name: name, Type: "periodic", Release: to, FromRelease: from, Upgrade: kind,
		Platform: platform, Network: network, Arch: "amd64", Topology: "ha"}
}

// fixture plants runs.
type fixture struct {
	build int64
	recs  []prowcrawl.Record
}

// runs adds n finished runs of j started evenly in (from, to], the newest
// at to. Run i (0 is the oldest) shows symptom s when i is in hits[s]; it
// failed when it shows any symptom, unless i is in passed.
func (f *fixture) runs(j prowcrawl.Job, n int, from, to time.Time, hits map[string][]int, passed ...int) {
	step := to.Sub(from) / time.Duration(n)
	for i := range n {
		start := from.Add(step * time.Duration(i+1))
		var shows []string
		for _, s := range fixtureSymptoms {
			for _, h := range hits[s.ID] {
				if h == i {
					shows = append(shows, s.ID)
				}
			}
		}
		result := "success"
		if len(shows) > 0 {
			result = "failure"
		}
		for _, p := range passed {
			if p == i {
				result = "success"
			}
		}
		f.run(j, result, start, shows...)
	}
}

func (f *fixture) run(j prowcrawl.Job, result string, start time.Time, symptoms ...string) {
	f.build++
	path := fmt.Sprintf("logs/%s/%d", j.Name, f.build)
	rec := prowcrawl.Record{Job: j, Run: prowcrawl.Run{
		BuildID: f.build, Bucket: "test-platform-results", Path: path,
		URL:       "https://prow.ci.openshift.org/view/gs/test-platform-results/" + path,
		StartedAt: start, Result: prowcrawl.Result(result), Release: j.Release, FromRelease: j.FromRelease, Upgrade: j.Upgrade,
		FetchStatus: "complete", CrawledAt: fixtureNow,
	}}
	if result != "pending" {
		rec.Run.FinishedAt = start.Add(2 * time.Hour)
		rec.Run.UpgradeState = "Completed"
		// From a z-stream of the from-release to a nightly of the release.
		rec.Run.FromVersion = fmt.Sprintf("%s.%d", j.FromRelease, f.build%9)
		rec.Run.ToVersion = fmt.Sprintf("%s.0-0.nightly-%s", j.Release, start.Format("2006-01-02-150405"))
	}
	podNetwork := false
	for _, s := range symptoms {
		e := evidence[s]
		// Each symptom lasts 30 s to 3.5 min, from the build id.
		at := start.Add(time.Hour)
		rec.Symptoms = append(rec.Symptoms, prowcrawl.RunSymptom{SymptomID: s, Hits: 3, File: path + "/" + e.file,
			Line: e.line, Excerpt: e.excerpt, At: at, LastAt: at.Add(time.Duration(f.build%7+1) * 30 * time.Second)})
		podNetwork = podNetwork || s == "pod-network-cross-node"
		if s == "upgrade-incomplete" {
			rec.Run.UpgradeState = "Partial"
		}
	}
	// Every finished run records the API's and the pod network's
	// disruption, in two files; more of it with pod-network-cross-node.
	if result != "pending" && result != "aborted" {
		api, pods := float64(f.build%3), 0.0
		if podNetwork {
			api, pods = float64(10+f.build%5*3), float64(4+f.build%4)
		}
		file := path + "/artifacts/e2e/openshift-e2e-test/artifacts/junit/backend-disruption_"
		rec.Disruptions = []prowcrawl.RunDisruption{
			{File: file + "1.json", Backend: "kube-api-new-connections", BackendName: "kube-api", Connection: "new", Seconds: api, Source: prowcrawl.DisruptionFromFile},
			{File: file + "2.json", Backend: "kube-api-new-connections", BackendName: "kube-api", Connection: "new", Seconds: 0, Source: prowcrawl.DisruptionFromFile},
			{File: file + "1.json", Backend: "pod-to-pod-new-connections", BackendName: "pod-to-pod", Connection: "new", Seconds: pods, Source: prowcrawl.DisruptionFromFile},
		}
	}
	f.recs = append(f.recs, rec)
}

// seq is the integers from a to b, both included.
func seq(a, b int) []int {
	var out []int
	for i := a; i <= b; i++ {
		out = append(out, i)
	}
	return out
}

// openFixture writes the fixture into a new database and analyses it. The
// verdicts it plants, edge against the edge a release earlier:
//
//	pod-network-cross-node  4.13->4.14 minor  7/24 against 0/24  regression (aws 6/14: regression; gcp 1/10: new)
//	etcd-connection-refused 4.13->4.14 minor  5/24 against 5/24  flake
//	etcd-transport-closing  4.14 micro       19/20 against 18/20 persistent
//	cni-default-network-... 4.14 micro        1/20 against 9/20  improved
//	sdn-rollout-readiness-. 4.14 micro        2/20 against 0/20  new
//	upgrade-incomplete      4.13->4.14 minor  1/24 against 0/24  new
//	api-unavailable-...     4.11->4.12 minor  1/6, no basis      insufficient
//
// and none wherever no run shows a symptom. The 4.14 z-stream job has 10
// runs in the last 7 days and 10 in the 30 before, for the window verdicts.
func openFixture(t testing.TB) *db.DB {
	t.Helper()
	d, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "fixture.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	if err := d.SyncSymptoms(t.Context(), fixtureSymptoms); err != nil {
		t.Fatal(err)
	}
	day := func(n int) time.Time { return fixtureNow.AddDate(0, 0, -n) }
	var f fixture
	f.build = 1_990_000_000_000_000_000

	f.runs(fixtureJob("4.11", "4.12", "minor", "aws", "ovn"), 6, day(70), day(40),
		map[string][]int{"api-unavailable-during-upgrade": {4}})
	f.runs(fixtureJob("4.12", "4.13", "minor", "aws", "ovn"), 14, day(42), day(1),
		map[string][]int{"etcd-connection-refused": {2, 7, 11}})
	f.runs(fixtureJob("4.12", "4.13", "minor", "gcp", "ovn"), 10, day(40), day(2),
		map[string][]int{"etcd-connection-refused": {3, 8}})
	aws := fixtureJob("4.13", "4.14", "minor", "aws", "ovn")
	f.runs(aws, 14, day(35), day(1), map[string][]int{
		"pod-network-cross-node":  {6, 8, 9, 11, 12, 13},
		"etcd-connection-refused": {1, 5, 10},
		"upgrade-incomplete":      {12},
	}, 9)
	f.run(aws, "aborted", day(3), "pod-network-cross-node")
	f.run(aws, "pending", fixtureNow.Add(-time.Hour))
	f.runs(fixtureJob("4.13", "4.14", "minor", "gcp", "ovn"), 10, day(30), day(2), map[string][]int{
		"pod-network-cross-node":  {8},
		"etcd-connection-refused": {2, 6},
	})
	f.runs(fixtureJob("4.13", "4.13", "micro", "aws", "sdn"), 20, day(60), day(3), map[string][]int{
		"etcd-transport-closing":      seq(0, 17),
		"cni-default-network-missing": {1, 3, 5, 7, 9, 11, 13, 15, 17},
	})
	z := fixtureJob("4.14", "4.14", "micro", "aws", "sdn")
	f.runs(z, 10, day(37), day(8), map[string][]int{
		"etcd-transport-closing":      seq(1, 9),
		"cni-default-network-missing": {4},
	})
	f.runs(z, 10, day(7), day(0).Add(-2*time.Hour), map[string][]int{
		"etcd-transport-closing":     seq(0, 9),
		"sdn-rollout-readiness-loss": {6, 9},
	})
	if err := d.Write(t.Context(), f.recs, nil); err != nil {
		t.Fatal(err)
	}
	opts := analyze.DefaultOptions()
	opts.Now = fixtureNow
	opts.AnalysedAt = fixtureNow
	if _, err := analyze.Run(t.Context(), d, opts); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestFixtureVerdicts checks that the fixture plants what openFixture says,
// so that a golden file that shows it is known to be right.
func TestFixtureVerdicts(t *testing.T) {
	d := openFixture(t)
	vs, err := d.Verdicts(t.Context(), db.Filter{Scope: db.ScopeEdge})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, v := range vs {
		if v.Comparison == db.CompareRelease {
			got[v.Symptom+" "+v.Key] = v.Verdict
		}
	}
	want := map[string]string{
		"pod-network-cross-node 4.13->4.14 minor":         analyze.VerdictRegression,
		"etcd-connection-refused 4.13->4.14 minor":        analyze.VerdictFlake,
		"etcd-transport-closing 4.14 micro":               analyze.VerdictPersistent,
		"cni-default-network-missing 4.14 micro":          analyze.VerdictImproved,
		"sdn-rollout-readiness-loss 4.14 micro":           analyze.VerdictNew,
		"upgrade-incomplete 4.13->4.14 minor":             analyze.VerdictNew,
		"api-unavailable-during-upgrade 4.11->4.12 minor": analyze.VerdictInsufficient,
		"api-unavailable-during-upgrade 4.14 micro":       analyze.VerdictNone,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: verdict %q, want %q", k, got[k], v)
		}
	}
	jobs, err := d.Verdicts(t.Context(), db.Filter{Scope: db.ScopeJob, Job: fixtureJob("4.14", "4.14", "micro", "aws", "sdn").Name})
	if err != nil {
		t.Fatal(err)
	}
	window := map[string]string{}
	for _, v := range jobs {
		if v.Scope == db.ScopeJob {
			window[v.Symptom] = v.Verdict
		}
	}
	for s, v := range map[string]string{
		"etcd-transport-closing":      analyze.VerdictPersistent,
		"sdn-rollout-readiness-loss":  analyze.VerdictNew,
		"cni-default-network-missing": analyze.VerdictNone,
	} {
		if window[s] != v {
			t.Errorf("window verdict of %s on the z-stream job: %q, want %q", s, window[s], v)
		}
	}
}
