// Package benchdb generates the database the benchmarks of the analysis and
// of the reports read: many runs of upgrade jobs, written through db.Write
// in the crawler's batches, so that a benchmark times the real schema and
// its indexes.
package benchdb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/db"
)

// Now is the end of the generated history: every run started in the 90
// days before it.
var Now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// Builtin are the design's built-in symptoms, which the runs show.
var Builtin = []string{
	"etcd-connection-refused", "etcd-transport-closing", "cni-default-network-missing", "pod-network-cross-node",
	"sdn-rollout-readiness-loss", "api-unavailable-during-upgrade", "upgrade-incomplete",
}

// Backends are the disruption backends of a generated run.
var Backends = []string{"kube-api-new-connections", "openshift-api-new-connections", "pod-to-pod-new-connections", "ingress-to-console-new-connections"}

const bucket = "test-platform-results"

// UpgradeJob is a periodic upgrade job from release from to release to, as
// the crawler derives it from the name. A z-stream has from == to.
func UpgradeJob(from, to, kind, platform, network string) prowcrawl.Job {
	name := fmt.Sprintf("periodic-ci-openshift-release-master-ci-%s-upgrade-from-stable-%s-e2e-%s-%s-upgrade",
		to, from, platform, network)
	if from == to {
		name = fmt.Sprintf("periodic-ci-openshift-release-master-ci-%s-e2e-%s-%s-upgrade", to, platform, network)
	}
	if network == "" {
		name = strings.ReplaceAll(name, "--", "-")
	}
	return prowcrawl.Job{Name: name, Type: "periodic", Release: to, FromRelease: from, Upgrade: kind,
		Platform: platform, Network: network, Arch: "amd64", Topology: "ha"}
}

// Generate writes n runs of 48 upgrade jobs (releases 4.9 to 4.16, minor
// and micro, four platforms, ovn, sdn and unnamed networks) over the 90
// days before Now, each with tests test cases, the symptoms a failing
// upgrade shows and (when finished) the disruption of four backends, in
// batches of 500. It is deterministic.
func Generate(ctx context.Context, d *db.DB, n, tests int) error {
	var syms []db.Symptom
	for _, id := range Builtin {
		syms = append(syms, db.Symptom{ID: id, Title: id, Source: "builtin"})
	}
	if err := d.SyncSymptoms(ctx, syms); err != nil {
		return err
	}
	var jobs []prowcrawl.Job
	for minor := 10; minor <= 16; minor++ {
		to, from := "4."+strconv.Itoa(minor), "4."+strconv.Itoa(minor-1)
		for i, platform := range []string{"aws", "gcp", "azure", "metal"} {
			network := []string{"ovn", "sdn", "", "ovn"}[i]
			jobs = append(jobs, UpgradeJob(from, to, "minor", platform, network))
			if i < 3 {
				jobs = append(jobs, UpgradeJob(to, to, "micro", platform, network))
			}
		}
	}
	jobs = jobs[:48]
	rng := rand.New(rand.NewPCG(1, 2))
	span := 90 * 24 * time.Hour
	build := int64(1_700_000_000_000_000_000)
	var recs []prowcrawl.Record
	for i := range n {
		j := jobs[i%len(jobs)]
		start := Now.Add(-time.Duration(rng.Int64N(int64(span))))
		result := prowcrawl.ResultSuccess
		switch x := rng.IntN(100); {
		case x < 20:
			result = prowcrawl.ResultFailure
		case x < 24:
			result = prowcrawl.ResultError
		case x < 27:
			result = prowcrawl.ResultAborted
		case x < 28:
			result = prowcrawl.ResultPending
		}
		var shows []string
		for k, id := range Builtin {
			// Each symptom has its own rate, higher in failed runs and in
			// the newest release.
			chance := 2 + k
			if result != prowcrawl.ResultSuccess {
				chance += 15
			}
			if j.Release == "4.16" && k == 3 {
				chance += 10
			}
			if rng.IntN(100) < chance {
				shows = append(shows, id)
			}
		}
		build++
		r := Record(j, build, result, start, shows...)
		// A nightly payload every six hours, as the release controller
		// builds them: the runs of an edge by payload, for its onsets.
		r.Run.ToVersion = j.Release + ".0-0.nightly-" + start.Truncate(6*time.Hour).Format("2006-01-02-150405")
		if result != prowcrawl.ResultPending {
			// Four backends of one backend-disruption file, as a run's
			// e2e step writes them: mostly a second or two, more in a run
			// whose pod network broke.
			for b, backend := range Backends {
				secs := float64(rng.IntN(3))
				if b == 2 && slices.Contains(shows, "pod-network-cross-node") {
					secs += float64(rng.IntN(20))
				}
				r.Disruptions = append(r.Disruptions, prowcrawl.RunDisruption{File: "artifacts/e2e/openshift-e2e-test/artifacts/junit/backend-disruption_e2e.json",
					Backend: backend, BackendName: strings.SplitN(backend, "-new", 2)[0], Connection: "new", Seconds: secs, Source: prowcrawl.DisruptionFromFile})
			}
		}
		for k := range tests {
			status := "pass"
			switch x := rng.IntN(100); {
			case x < 3:
				status = "flake"
			case x < 5:
				status = "fail"
			case x < 8:
				status = "skip"
			}
			r.Tests = append(r.Tests, prowcrawl.Test{Suite: "openshift-tests",
				Name: fmt.Sprintf("[sig-test] upgrade case %d should work", k), Status: status})
		}
		recs = append(recs, r)
		if len(recs) == 500 {
			if err := d.Write(ctx, recs, nil); err != nil {
				return err
			}
			recs = recs[:0]
		}
	}
	if len(recs) > 0 {
		return d.Write(ctx, recs, nil)
	}
	return nil
}

// Open opens the benchmark database at path, generating n runs with tests
// tests each when the file does not exist yet (generated says so); an
// existing file is reused as it is, whatever n and tests.
func Open(ctx context.Context, path string, n, tests int) (d *db.DB, generated bool, err error) {
	_, statErr := os.Stat(path)
	if d, err = db.Open(ctx, path); err != nil {
		return nil, false, err
	}
	if statErr == nil {
		return d, false, nil
	}
	if err := Generate(ctx, d, n, tests); err != nil {
		return nil, false, errors.Join(err, d.Close())
	}
	return d, true, nil
}

// Record is a complete run of job j in the bucket: build id build, started
// at start, two hours long unless pending, with the symptoms symptomIDs
// matched an hour in, as the analysis' tests and benchmarks plant them.
func Record(j prowcrawl.Job, build int64, result prowcrawl.Result, start time.Time, symptomIDs ...string) prowcrawl.Record {
	path := fmt.Sprintf("logs/%s/%d", j.Name, build)
	r := prowcrawl.Record{
		Job: j,
		Run: prowcrawl.Run{
			BuildID: build, Bucket: bucket, Path: path,
			URL:       "https://prow.ci.openshift.org/view/gs/" + bucket + "/" + path,
			StartedAt: start, Result: result,
			Release: j.Release, FromRelease: j.FromRelease, Upgrade: j.Upgrade,
			FetchStatus: prowcrawl.FetchComplete,
		},
	}
	if result != prowcrawl.ResultPending {
		r.Run.FinishedAt = start.Add(2 * time.Hour)
	}
	for _, id := range symptomIDs {
		r.Symptoms = append(r.Symptoms, prowcrawl.RunSymptom{SymptomID: id, Hits: 2,
			File: "artifacts/e2e/gather-extra/pods/etcd.log", Line: 7, Excerpt: "dial tcp 10.0.61.114:2379: connect: connection refused",
			At: start.Add(time.Hour)})
	}
	return r
}
