// Command gen writes testdata/bucket, a small, realistic copy of the layout
// prowcrawl reads from gs://test-platform-results-public (its template-era
// jobs imitate gs://origin-ci-test). The demo and the tests of every later
// feature use it. Run it from the module root:
//
//	go run ./testdata/gen -out testdata/bucket
//
// With -days N it writes the same bucket grown by N days of runs (see
// addDays), to crawl after the first and see what changed:
//
//	go run ./testdata/gen -out /tmp/grown -days 5
//
// It deletes and rewrites the output directory and writes the same bytes on
// every run: each run draws from its own fixed-seed RNG and no wall clock is
// read. To change the bucket, change the plans in jobs.go and regenerate; do not
// edit the output by hand.
//
// testdata/bucket/MANIFEST.json is the answer key. It lists every run with its
// path, job, build id, start, normalized result ("pending" when finished.json
// is missing), versions, the symptom ids it shows (DESIGN.md's built-in list),
// and its flaky and failed JUnit tests per suite (failed_tests includes
// ci-operator's "operator" suite). Tests assert against it. Every other run
// shows no symptom: network daemonset restarts happen in every upgrade, but no
// readiness probe fails within minutes of them. The planted facts:
//
//   - Sample edge 4.13->4.14 aws ovn
//     (periodic-ci-openshift-release-master-ci-4.14-upgrade-from-stable-4.13-e2e-aws-ovn-upgrade):
//     16 runs from 2026-11-10 to 2026-11-27. The newest is pending and
//     latest-build.txt points at it. One is aborted, with no JUnit. 14 finished:
//     6 failed, 8 passed. pod-network-cross-node in 6 of them (5 failed, 1
//     passed), each of the 6 from the payload of Nov 18 on, none of the 7
//     finished runs before it: an onset by payload. 3 of those 6 also record pod-to-pod-new-connections disruption
//     above 0s; every other run records "0s". One of the 6 has clusterversion
//     history[0] Partial and a failed "Cluster completes upgrade"
//     (upgrade-incomplete). etcd-connection-refused and etcd-transport-closing
//     in 3 runs. 2 junit_upgrade flakes and 1 junit_e2e flake.
//     One finished.json has the lower-case result "failure" that crier writes.
//   - Basis edge 4.12->4.13 aws ovn (...-ci-4.13-upgrade-from-stable-4.12-...):
//     14 finished runs from 2026-10-20 to 2026-11-26. pod-network-cross-node in 0
//     runs, so the sample shows a regression. etcd in 3 runs, the same rate as
//     the sample, so etcd is a flake. 2 failures with no symptom. Near-misses that
//     must match nothing: "dial tcp 10.0.0.5:6443: connect: connection refused"
//     (the API port, in 4 kube-apiserver logs), "dial tcp 172.30.0.10:443: i/o
//     timeout" (the service network, 3 runs) and "Readiness probe failed: HTTP
//     probe failed with statuscode: 500" (no timeout, 3 runs). One junit_upgrade
//     and one junit_e2e flake. One finished.json has the lower-case result "success".
//   - z-stream 4.14 aws sdn (periodic-ci-openshift-release-master-nightly-4.14-e2e-aws-sdn-upgrade):
//     10 finished runs from 2026-11-05 to 2026-11-28.
//     cni-default-network-missing in 3 runs. In 2 of those 3, an openshift-sdn
//     pod restart (reason/Killing, Pulling) is followed 8-12 s later by a
//     readiness probe failure in openshift-apiserver
//     (sdn-rollout-readiness-loss). In one other run the same restart is
//     followed by a probe failure 90 s later, a near-miss.
//     api-unavailable-during-upgrade in 1 run.
//   - z-stream 4.13 aws sdn (...-ci-4.13-e2e-aws-sdn-upgrade), the basis of the
//     4.14 z-stream: 10 finished runs from 2026-10-25 to 2026-11-25. cni in 2 runs.
//   - Template era, January 2020 (release-openshift-origin-installer-e2e-aws-upgrade):
//     8 runs with build ids 9998, 9999, 10000, 10001, 14097, 14098, 14102,
//     16233. These sort wrongly as strings; latest-build.txt holds 16233. 14098
//     is the run from seed 002. Its root build-log.txt has the seed's monitor
//     lines verbatim: cni, sdn-rollout, pod-network-cross-node, and failed
//     "Kubernetes/OpenShift APIs remain available" tests. 10001 has
//     clusterversion Partial (as in seed 000), the etcd refusals and "transport is
//     closing". 9998-10001 have no release.openshift.io annotations. 14102 has the
//     lower-case result "success".
//   - A job that is not an upgrade job (periodic-ci-openshift-release-master-nightly-4.14-e2e-aws-ovn):
//     3 runs, one failed with etcd symptoms. The default --job upgrade filter
//     must skip it.
//   - Two failure modes no built-in rule names, for suggest (plan.fail2):
//     "[bz-Machine Config Operator] clusteroperator/machine-config should not
//     change condition/Degraded" fails in 4 failed runs of the sample edge
//     (3 of which show pod-network-cross-node), and "[sig-arch] events should
//     not repeat pathologically for ns/openshift-machine-config-operator"
//     (machine-config-daemon BackOff) in 4 failed runs of the 4.12->4.13 and
//     4.13/4.14 z-stream jobs. Each only adds a failed test to the run's
//     junit_e2e and its line to the step log; the run's result and symptoms
//     stay as they were.
//   - Presubmits of pull-ci-openshift-origin-master-e2e-aws-ovn-upgrade: PR 28431
//     under pr-logs/pull/openshift_origin/ has 2 runs, one success and one
//     failure with no symptom. PR 28100 has one run in the old path form
//     pr-logs/pull/28100/<job>/<id>. Each run has a
//     pr-logs/directory/<job>/<id>.txt link file.
//
// Names worth knowing. Today's build ids are snowflakes derived from the start
// time: ((id>>22)+1288834974657)/1000 == started.json timestamp.
// Multi-stage runs have:
//
//	artifacts/<target>/openshift-e2e-test/build-log.txt
//	artifacts/<target>/openshift-e2e-test/artifacts/junit/{junit_e2e_<YYYYMMDD-HHMMSS>.xml, junit_upgrade_<unix>.xml,
//	    e2e-events_<YYYYMMDD-HHMMSS>.json, e2e-timelines_spyglass_<YYYYMMDD-HHMMSS>.json, backend-disruption_<YYYYMMDD-HHMMSS>.json}
//	artifacts/<target>/gather-extra/artifacts/clusterversion.json
//	artifacts/<target>/gather-extra/artifacts/pods/{openshift-kube-apiserver_kube-apiserver-<node>_kube-apiserver.log, openshift-etcd_etcd-<node>_etcd.log}
//	artifacts/junit_operator.xml, artifacts/metadata.json
//
// The e2e-events and timeline files hold one interval per line. Template-era
// runs have artifacts/e2e-aws-upgrade/{e2e.log, clusterversion.json,
// junit/junit_*.xml, pods/*.log}, and their monitor and "failed:" lines are in
// the root build-log.txt. Pod logs are stored gzip-compressed without a .gz
// suffix, as "gcloud storage cp" leaves content-encoded objects; every other
// file is plain. Presubmit PR directories also hold a latest-build.txt.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

func main() {
	out := flag.String("out", "testdata/bucket", "bucket directory to delete and rewrite")
	days := flag.Int("days", 0, "add this many days of runs after the bucket's last day (see addDays), for a second crawl that finds changes")
	flag.Parse()
	if err := generate(*out, *days); err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
}

func generate(out string, days int) error {
	if err := clearDir(out); err != nil {
		return err
	}
	b := &bucket{root: out}
	var runs []manifestRun
	jobs := allJobs()
	addDays(jobs, days)
	for _, j := range jobs {
		runs = append(runs, writeJob(b, j)...)
	}
	writeManifest(b, runs)
	return b.err
}

// clearDir deletes out, but only if it is empty or holds a bucket this command
// wrote, so that a mistyped -out cannot wipe an unrelated directory.
func clearDir(out string) error {
	entries, err := os.ReadDir(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		if _, err := os.Stat(filepath.Join(out, "MANIFEST.json")); err != nil {
			return fmt.Errorf("%s is not empty and has no MANIFEST.json; refusing to delete it", out)
		}
	}
	return os.RemoveAll(out)
}

// bucket writes objects under root. The first error sticks and makes later
// writes no-ops, so that callers can write many files and check once.
type bucket struct {
	root string
	err  error
}

func (b *bucket) write(name string, data []byte) {
	if b.err != nil {
		return
	}
	p := filepath.Join(b.root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.err = err
		return
	}
	b.err = os.WriteFile(p, data, 0o644)
}

func (b *bucket) text(name, s string) { b.write(name, []byte(s)) }

// gzipped stores s compressed under a name without .gz, as a download of a
// Content-Encoding: gzip object leaves it.
func (b *bucket) gzipped(name, s string) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(s)); err != nil && b.err == nil {
		b.err = err
	}
	if err := zw.Close(); err != nil && b.err == nil {
		b.err = err
	}
	b.write(name, buf.Bytes())
}

// json writes v compactly, or indented with indent when it is not empty.
func (b *bucket) json(name string, v any, indent string) {
	var data []byte
	var err error
	if indent == "" {
		data, err = json.Marshal(v)
	} else {
		data, err = json.MarshalIndent(v, "", indent)
	}
	if err != nil {
		if b.err == nil {
			b.err = fmt.Errorf("encode %s: %w", name, err)
		}
		return
	}
	b.write(name, data)
}
