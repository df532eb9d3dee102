package db

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/prow"
)

// TestMigrationRederives opens a database an older prowcrawl made (schema
// 4): migration 0005 derives the stored jobs' variants again from their
// names, re-keys the runs of a job whose edge changed (out-of-change is a
// downgrade now, and test_counts follows), decides from the stored
// artifacts whose upgrade began, and fills the keys.
func TestMigrationRederives(t *testing.T) {
	ctx := t.Context()
	src := openAt(t, filepath.Join(t.TempDir(), "src.db"))
	start := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	// What the older crawler wrote: its own variants of each name.
	outOfChange := prowcrawl.Job{Name: "periodic-ci-openshift-release-master-ci-4.16-e2e-gcp-sdn-upgrade-out-of-change", Type: "periodic",
		Release: "4.16", FromRelease: "4.16", Upgrade: "micro", Platform: "gcp", Network: "sdn", Arch: "amd64"}
	cnv := prowcrawl.Job{Name: "periodic-ci-openshift-release-main-cnv-nightly-4.21-upgrade-azure-kubevirt-ovn", Type: "periodic",
		Release: "4.21", FromRelease: "4.21", Upgrade: "micro", Platform: "kubevirt", Network: "ovn", Arch: "amd64"}
	sno := prowcrawl.Job{Name: "periodic-ci-openshift-release-master-ci-4.12-e2e-aws-upgrade-single-node", Type: "periodic",
		Release: "4.12", FromRelease: "4.12", Upgrade: "micro", Platform: "aws", Arch: "amd64"}
	pre := prowcrawl.Job{Name: "pull-ci-openshift-origin-master-e2e-aws-ovn-upgrade", Type: "presubmit", Upgrade: "", Platform: "aws", Network: "ovn", Arch: "amd64"}
	run := func(j prowcrawl.Job, id int64, rel, from, kind, fromV, toV string, tests ...prowcrawl.Test) prowcrawl.Record {
		return prowcrawl.Record{Job: j, Run: prowcrawl.Run{BuildID: id, Bucket: "b", Path: "p", URL: "u", StartedAt: start, Result: "failure",
			Release: rel, FromRelease: from, Upgrade: kind, FromVersion: fromV, ToVersion: toV, FetchStatus: "complete"}, Tests: tests}
	}
	ack := func(status string) prowcrawl.Test {
		return prowcrawl.Test{Suite: "Cluster upgrade", Name: prow.AckUpgradeTest, Status: status}
	}
	other := prowcrawl.Test{Suite: "s", Name: "install should succeed: overall", Status: "pass"}
	write(t, src, []prowcrawl.Record{
		run(outOfChange, 1, "4.16", "4.16", "micro", "4.16.1", "4.16.2", ack("pass")),
		run(cnv, 2, "4.21", "4.21", "micro", "", "4.21.3", other),             // one history entry, no ack: never began
		run(cnv, 3, "4.21", "4.21", "micro", "", "", ack("fail")),             // ack failed: never began
		run(sno, 4, "4.12", "4.12", "micro", "", "4.12.9", ack("flake")),      // acknowledged after a retry
		run(sno, 5, "4.12", "4.12", "micro", "", ""),                          // nothing read: unknown
		run(pre, 6, "4.14", "4.14", "micro", "4.14.1", "4.14.2", ack("pass")), // a presubmit on a 4.14 z-stream
	})
	path := filepath.Join(t.TempDir(), "old.db")
	oldDatabase(t, src, path, 4)
	d := openAt(t, path)

	jobs := queryStrings(t, d.db, `SELECT name || ' ' || coalesce(type, '-') || ' ' || coalesce(upgrade, '-') || ' ' ||
	coalesce(platform, '-') || ' ' || coalesce(network, '-') || ' ' || coalesce(topology, '-') FROM jobs ORDER BY name`)
	want := []string{
		cnv.Name + " periodic micro azure ovn ha",
		sno.Name + " periodic micro aws ovn single",
		outOfChange.Name + " periodic micro-downgrade gcp sdn ha",
		pre.Name + " presubmit - aws ovn ha",
	}
	if !slices.Equal(jobs, want) {
		t.Errorf("jobs\n got %q\nwant %q", jobs, want)
	}
	runs := queryStrings(t, d.db, `SELECT build_id || ' ' || upgrade || ' ' || coalesce(upgrade_started, 'NULL') || ' ' ||
	coalesce(edge, 'NULL') || ' | ' || coalesce(variant, 'NULL') FROM runs ORDER BY build_id`)
	want = []string{
		"1 micro-downgrade 1 4.16 micro-downgrade | 4.16 micro-downgrade gcp sdn amd64 ha",
		"2 micro 0 4.21 micro | 4.21 micro azure ovn amd64 ha",
		"3 micro 0 4.21 micro | 4.21 micro azure ovn amd64 ha",
		"4 micro 1 4.12 micro | 4.12 micro aws ovn amd64 single",
		"5 micro NULL 4.12 micro | 4.12 micro aws ovn amd64 single",
		"6 micro 1 NULL | NULL",
	}
	if !slices.Equal(runs, want) {
		t.Errorf("runs\n got %q\nwant %q", runs, want)
	}
	// The out-of-change run's tests moved to its new edge.
	counts := queryStrings(t, d.db, `SELECT upgrade || ' ' || runs FROM test_counts WHERE job = ?`, outOfChange.Name)
	if !slices.Equal(counts, []string{"micro-downgrade 1"}) {
		t.Errorf("test_counts of the out-of-change job: %q", counts)
	}
	checkTestCounts(t, d, "after migration 0005")
	if need, err := NeedsMigration(ctx, path); err != nil || need {
		t.Errorf("NeedsMigration after the upgrade: %v, %v", need, err)
	}
}

// TestStackMigration: a database stored before the network stack was a
// variant gets its jobs' stacks and its IPv6 runs' variant keys; an IPv4
// run's key is as it was.
func TestStackMigration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v21.db")
	old, err := OpenAtVersion(t.Context(), path, 21)
	if err != nil {
		t.Fatal(err)
	}
	const v4, v6 = "periodic-ci-openshift-release-master-nightly-4.16-upgrade-from-stable-4.15-e2e-metal-ipi-upgrade-ovn",
		"periodic-ci-openshift-release-master-nightly-4.16-upgrade-from-stable-4.15-e2e-metal-ipi-upgrade-ovn-ipv6"
	for i, name := range []string{v4, v6} {
		if _, err := old.db.ExecContext(t.Context(), `INSERT INTO jobs (name, type, release, from_release, upgrade, platform, network, arch, topology)
VALUES (?, 'periodic', '4.16', '4.15', 'minor', 'metal', 'ovn', 'amd64', 'ha')`, name); err != nil {
			t.Fatal(err)
		}
		if _, err := old.db.ExecContext(t.Context(), `INSERT INTO runs (job, build_id, bucket, path, url, started_at, result, release, from_release, upgrade,
	fetch_status, crawled_at, edge, variant)
VALUES (?, ?, 'b', 'p', 'u', '2026-11-01T10:00:00Z', 'failure', '4.16', '4.15', 'minor', 'complete', '2026-11-02T00:00:00Z',
	'4.15->4.16 minor', '4.15->4.16 minor metal ovn amd64 ha')`, name, i+1); err != nil {
			t.Fatal(err)
		}
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	d := openAt(t, path)
	got := queryStrings(t, d.db, `SELECT j.network_stack || ' ' || r.variant FROM runs r JOIN jobs j ON j.name = r.job ORDER BY r.build_id`)
	want := []string{"ipv4 4.15->4.16 minor metal ovn amd64 ha", "ipv6 4.15->4.16 minor metal ovn amd64 ha ipv6"}
	if !slices.Equal(got, want) {
		t.Errorf("after the migration: %q, want %q", got, want)
	}
}
