package prow

import (
	"slices"
	"strings"
	"testing"
)

func TestParseRunPath(t *testing.T) {
	const upgrade = "periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade"
	tests := []struct {
		in     string
		want   RunPath
		wantOK bool
	}{
		{"logs/" + upgrade + "/1697460066833141760",
			RunPath{Job: upgrade, BuildID: 1697460066833141760, Type: "periodic", Prefix: "logs/" + upgrade + "/1697460066833141760"}, true},
		{"logs/release-openshift-origin-installer-e2e-aws-upgrade/14098/",
			RunPath{Job: "release-openshift-origin-installer-e2e-aws-upgrade", BuildID: 14098, Type: "periodic", Prefix: "logs/release-openshift-origin-installer-e2e-aws-upgrade/14098"}, true},
		{"gs://origin-ci-test/logs/release-openshift-origin-installer-e2e-gcp-upgrade-4.8/1366716541889941504",
			RunPath{Job: "release-openshift-origin-installer-e2e-gcp-upgrade-4.8", BuildID: 1366716541889941504, Type: "periodic", Prefix: "logs/release-openshift-origin-installer-e2e-gcp-upgrade-4.8/1366716541889941504"}, true},
		{"gs://test-platform-results/pr-logs/pull/openshift_installer/8123/pull-ci-openshift-installer-main-e2e-aws/1962527613477982208/",
			RunPath{Job: "pull-ci-openshift-installer-main-e2e-aws", BuildID: 1962527613477982208, Type: "presubmit", Org: "openshift", Repo: "installer", Pull: 8123,
				Prefix: "pr-logs/pull/openshift_installer/8123/pull-ci-openshift-installer-main-e2e-aws/1962527613477982208"}, true},
		{"pr-logs/pull/openshift_cluster-network-operator/1997/pull-ci-openshift-cluster-network-operator-master-e2e-aws-ovn-upgrade/1712345678901234567",
			RunPath{Job: "pull-ci-openshift-cluster-network-operator-master-e2e-aws-ovn-upgrade", BuildID: 1712345678901234567, Type: "presubmit", Org: "openshift", Repo: "cluster-network-operator", Pull: 1997,
				Prefix: "pr-logs/pull/openshift_cluster-network-operator/1997/pull-ci-openshift-cluster-network-operator-master-e2e-aws-ovn-upgrade/1712345678901234567"}, true},
		{"pr-logs/pull/27731/pull-ci-openshift-origin-master-e2e-aws-ovn-upgrade/1626951434970861568",
			RunPath{Job: "pull-ci-openshift-origin-master-e2e-aws-ovn-upgrade", BuildID: 1626951434970861568, Type: "presubmit", Pull: 27731,
				Prefix: "pr-logs/pull/27731/pull-ci-openshift-origin-master-e2e-aws-ovn-upgrade/1626951434970861568"}, true},
		{"pr-logs/pull/origin/24771/pull-ci-openshift-origin-master-e2e-aws-upgrade/7771",
			RunPath{Job: "pull-ci-openshift-origin-master-e2e-aws-upgrade", BuildID: 7771, Type: "presubmit", Repo: "origin", Pull: 24771,
				Prefix: "pr-logs/pull/origin/24771/pull-ci-openshift-origin-master-e2e-aws-upgrade/7771"}, true},
		{"pr-logs/pull/batch/pull-ci-openshift-origin-master-e2e-aws/1234",
			RunPath{Job: "pull-ci-openshift-origin-master-e2e-aws", BuildID: 1234, Type: "batch", Prefix: "pr-logs/pull/batch/pull-ci-openshift-origin-master-e2e-aws/1234"}, true},
		{"logs/job", RunPath{}, false},
		{"logs/job/", RunPath{}, false},
		{"logs/job/latest-build.txt", RunPath{}, false},
		{"logs/job/123/artifacts", RunPath{}, false},
		{"logs/job/123//", RunPath{}, false},
		{"logs//123", RunPath{}, false},
		{"logs/../123", RunPath{}, false},
		{"../x", RunPath{}, false},
		{"logs/./123", RunPath{}, false},
		{"/logs/job/123", RunPath{}, false},
		{"", RunPath{}, false},
		{"gs://bucket", RunPath{}, false},
		{"gs://bucket/", RunPath{}, false},
		{"logs/job/-1", RunPath{}, false},
		{"logs/job/12345678901234567890", RunPath{}, false},
		{"logs/job name/123", RunPath{}, false},
		{"pr-logs/pull/openshift_origin/0/job/123", RunPath{}, false},
		{"pr-logs/pull/openshift_origin/abc/job/123", RunPath{}, false},
		{"pr-logs/pull/openshift_origin/12/job", RunPath{}, false},
		{"pr-logs/directory/job/123", RunPath{}, false},
		{"pr-logs/directory/job/123.txt", RunPath{}, false},
		{"https://prow.ci.openshift.org/view/gs/bucket/logs/job/123", RunPath{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ParseRunPath(tt.in)
			if ok != tt.wantOK || got != tt.want {
				t.Errorf("got %+v, %v\nwant %+v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestViewURL(t *testing.T) {
	got := ViewURL("test-platform-results", "logs/periodic-ci-openshift-release-master-ci-4.14-e2e-aws-ovn-upgrade/1697460066833141760/")
	want := "https://prow.ci.openshift.org/view/gs/test-platform-results/logs/periodic-ci-openshift-release-master-ci-4.14-e2e-aws-ovn-upgrade/1697460066833141760"
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func FuzzParseRunPath(f *testing.F) {
	f.Add("logs/release-openshift-origin-installer-e2e-aws-upgrade/14098")
	f.Add("gs://test-platform-results/pr-logs/pull/openshift_origin/28214/pull-ci-openshift-origin-master-e2e-aws-ovn-upgrade/1702391785004732416/")
	f.Add("pr-logs/pull/27731/pull-ci-openshift-origin-master-e2e-aws-ovn-upgrade/1626951434970861568")
	f.Add("pr-logs/pull/batch/pull-ci-openshift-origin-master-e2e-aws/1234")
	for _, name := range testdataFiles(f, "prowjob*.json") {
		if pj, err := ParseProwJob(readTestdata(f, name)); err == nil {
			if _, prefix, ok := strings.Cut(pj.URL, "/view/gs/"); ok {
				f.Add("gs://" + prefix)
			}
		}
	}
	f.Fuzz(func(t *testing.T, p string) {
		rp, ok := ParseRunPath(p)
		rp2, ok2 := ParseRunPath(p)
		if ok != ok2 || rp != rp2 {
			t.Fatal("two parses differ")
		}
		if !ok {
			if rp != (RunPath{}) {
				t.Fatalf("rejected with a value %+v", rp)
			}
			return
		}
		if rp.BuildID < 0 || rp.Job == "" || strings.HasSuffix(rp.Prefix, "/") || slices.Contains(strings.Split(rp.Prefix, "/"), "..") {
			t.Fatalf("bad run path %+v", rp)
		}
		// The prefix is itself a run path with the same meaning.
		if again, ok := ParseRunPath(rp.Prefix); !ok || again != rp {
			t.Fatalf("prefix %q parses as %+v, %v", rp.Prefix, again, ok)
		}
		if !strings.HasSuffix(ViewURL("b", rp.Prefix), "/view/gs/b/"+rp.Prefix) {
			t.Fatalf("view URL %s", ViewURL("b", rp.Prefix))
		}
	})
}
