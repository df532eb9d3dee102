package prowcrawl

import "testing"

// edgeCases are the shapes of edge a run can have, and their keys.
var edgeCases = []struct {
	e    Edge
	want string
}{
	{Edge{"4.13", "4.14", "minor"}, "4.13->4.14 minor"},
	{Edge{"4.14", "4.14", "micro"}, "4.14 micro"},
	{Edge{"", "4.14", "micro"}, "4.14 micro"},
	{Edge{"4.12", "4.14", "multi"}, "4.12->4.14 multi"},
	{Edge{"4.14", "4.14", "none"}, "4.14 none"},
	{Edge{"4.13", "4.14", ""}, "4.13->4.14 -"},
	{Edge{"", "", "micro"}, ""},
}

func TestEdgeString(t *testing.T) {
	for _, c := range edgeCases {
		if got := c.e.String(); got != c.want {
			t.Errorf("%#v.String() = %q, want %q", c.e, got, c.want)
		}
	}
	v := Variant{Edge: Edge{"4.13", "4.14", "minor"}, Platform: "aws", Arch: "amd64"}
	if got, want := v.String(), "4.13->4.14 minor aws - amd64 -"; got != want {
		t.Errorf("variant with no network = %q, want %q", got, want)
	}
}

// TestRunKeys: the keys of a run, from its job: a presubmit has none, a
// job without a network takes the default of the release installed.
func TestRunKeys(t *testing.T) {
	aws := Job{Name: "j", Type: "periodic", Platform: "aws", Network: "ovn", Arch: "amd64", Topology: "ha"}
	noNet := aws
	noNet.Network = ""
	pre := aws
	pre.Type = TypePresubmit
	for _, c := range []struct {
		j                 Job
		rel, from, kind   string
		wantEdge, wantVar string
	}{
		{aws, "4.14", "4.13", "minor", "4.13->4.14 minor", "4.13->4.14 minor aws ovn amd64 ha"},
		{noNet, "4.12", "4.11", "minor", "4.11->4.12 minor", "4.11->4.12 minor aws sdn amd64 ha"},
		{noNet, "4.12", "", "micro", "4.12 micro", "4.12 micro aws ovn amd64 ha"},
		{aws, "4.16", "4.16", "micro-downgrade", "4.16 micro-downgrade", "4.16 micro-downgrade aws ovn amd64 ha"},
		{pre, "4.14", "4.14", "micro", "", ""},
		{aws, "", "", "", "", ""},
	} {
		e, v := RunKeys(c.j, c.rel, c.from, c.kind)
		if e.String() != c.wantEdge || v.String() != c.wantVar {
			t.Errorf("RunKeys(%+v, %q, %q, %q) = %q, %q; want %q, %q", c.j, c.rel, c.from, c.kind, e, v, c.wantEdge, c.wantVar)
		}
	}
}

// TestEdgeOfRun: the job name's edge when it names one; else the cluster's
// versions, else the release controller's tags; a job that does not
// upgrade stays in its release.
func TestEdgeOfRun(t *testing.T) {
	named := JobFromName("periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade", false)
	old := Job{Name: "release-openshift-origin-installer-e2e-aws-upgrade", Type: "periodic"}
	noUpgrade := Job{Name: "periodic-e2e-aws", Type: "periodic", Upgrade: "none"}
	cluster := Run{FromVersion: "4.12.9", ToVersion: "4.13.0-0.nightly-2023-05-04-090524", Tag: "4.9.1", FromTag: "4.9.0"}
	tagged := Run{Tag: "4.14.0-0.ci-2023-09-01-001122", FromTag: "4.14.0-0.ci-2023-08-30-102030"}
	for _, c := range []struct {
		name string
		j    Job
		run  Run
		want Edge
	}{
		{"the name names the edge", named, cluster, Edge{"4.13", "4.14", "minor"}},
		{"the cluster's versions before the tags", old, cluster, Edge{"4.12", "4.13", "minor"}},
		{"the tags when the cluster said none", old, tagged, Edge{"4.14", "4.14", "micro"}},
		{"nothing known", old, Run{}, Edge{}},
		{"no upgrade", noUpgrade, tagged, Edge{"4.14", "4.14", "none"}},
	} {
		if got := EdgeOfRun(c.j, c.run); got != c.want {
			t.Errorf("%s: EdgeOfRun = %#v, want %#v", c.name, got, c.want)
		}
	}
}
