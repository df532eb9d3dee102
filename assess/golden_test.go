package assess

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/internal/testutil"
)

// day is 2026-11-d at hour h, UTC.
func day(d, h int) time.Time { return time.Date(2026, 11, d, h, 0, 0, 0, time.UTC) }

// edgeVerdict is a release comparison of an edge with the same edge one
// release earlier.
func edgeVerdict(key, basis, verdict string, hits, runs, basisHits, basisRuns int, p float64) db.SymptomVerdict {
	return db.SymptomVerdict{Symptom: "pod-network", Scope: db.ScopeEdge, Key: key, Comparison: db.CompareRelease,
		SampleLabel: key, BasisLabel: basis, SampleRuns: runs, SampleHits: hits, BasisRuns: basisRuns, BasisHits: basisHits,
		SampleRate: rateOrNaN(hits, runs), BasisRate: rateOrNaN(basisHits, basisRuns), P: p, Verdict: verdict,
		SampleFrom: day(1, 0), SampleTo: day(28, 0), BasisFrom: day(2, 0), BasisTo: day(27, 0)}
}

// jobWindow is a window comparison of a job: the last days against the
// weeks before.
func jobWindow(job, verdict string, hits, runs, basisHits, basisRuns int, p float64) db.SymptomVerdict {
	return db.SymptomVerdict{Symptom: "pod-network", Scope: db.ScopeJob, Key: job, Comparison: db.CompareWindow,
		SampleLabel: "2026-11-22..2026-11-28", BasisLabel: "2026-10-23..2026-11-21", SampleRuns: runs, SampleHits: hits,
		BasisRuns: basisRuns, BasisHits: basisHits, SampleRate: rateOrNaN(hits, runs), BasisRate: rateOrNaN(basisHits, basisRuns),
		P: p, Verdict: verdict}
}

// rate is the counted runs of a scope key showing the symptom.
func rate(scope, key string, with, finished, failedWith, failed int) db.SymptomRate {
	return db.SymptomRate{Symptom: "pod-network", Scope: scope, Key: key, FinishedRuns: finished, RunsWith: with,
		FailedWith: failedWith, PassedWith: with - failedWith, Rate: rateOrNaN(with, finished), FailedRuns: failed,
		ShareOfFailures: rateOrNaN(failedWith, failed), First: day(1, 0), Last: day(28, 0), Jobs: 1, OnlyJob: "e2e-aws-upgrade"}
}

// run is a run showing the symptom from at to last.
func run(build int64, edge, from, to, platform, result, state string, at, last, finished time.Time) db.SymptomRun {
	return db.SymptomRun{Job: "e2e-" + platform + "-upgrade", BuildID: build, URL: "https://prow.example/view/" + edge, Result: result,
		StartedAt: at.Add(-time.Hour), FinishedAt: finished, Edge: edge, Release: "4.14", FromRelease: "4.13", Upgrade: "minor",
		FromVersion: from, ToVersion: to, UpgradeState: state, Platform: platform, At: at, LastAt: last}
}

// numbers are, by hand, the numbers of a symptom that regressed on one
// edge (on AWS, not GCP) and is a flake on another: every question has an
// answer to give, and the blocked edges a draft.
func numbers() analyze.SymptomNumbers {
	const minor, micro = "4.13->4.14 minor", "4.14 micro"
	return analyze.SymptomNumbers{
		Symptom: db.Symptom{ID: "pod-network", Title: "pod network unreachable across nodes",
			Description: "Pods on different nodes cannot reach each other.", Bug: "https://issues.example/OCPBUGS-1"},
		Verdicts: []db.SymptomVerdict{
			edgeVerdict(minor, "4.12->4.13 minor", analyze.VerdictRegression, 7, 24, 0, 24, 0.0047),
			edgeVerdict(micro, "4.13 micro", analyze.VerdictFlake, 3, 20, 2, 20, 0.5),
			edgeVerdict("4.15 micro", "4.14 micro", analyze.VerdictInsufficient, 0, 4, 0, 0, math.NaN()),
			{Symptom: "pod-network", Scope: db.ScopeVariant, Key: minor + " aws ovn amd64 ha", Comparison: db.CompareRelease,
				SampleLabel: minor + " aws ovn amd64 ha", BasisLabel: "4.12->4.13 minor aws ovn amd64 ha", SampleRuns: 12, SampleHits: 7,
				BasisRuns: 12, SampleRate: 7.0 / 12, P: 0.002, Verdict: analyze.VerdictRegression},
			jobWindow("e2e-aws-upgrade", analyze.VerdictFlake, 2, 10, 5, 30, 0.4),
			jobWindow("e2e-gcp-upgrade", analyze.VerdictNone, 0, 10, 0, 30, 1),
		},
		Rates: []db.SymptomRate{
			rate(db.ScopeEdge, minor, 7, 24, 6, 9),
			rate(db.ScopeEdge, micro, 3, 20, 1, 4),
			rate(db.ScopeEdge, "4.15 micro", 0, 4, 0, 1),
			rate(db.ScopeVariant, minor+" aws ovn amd64 ha", 7, 12, 6, 6),
			rate(db.ScopeJob, "e2e-aws-upgrade", 10, 44, 7, 13),
			rate(db.ScopeJob, "e2e-gcp-upgrade", 0, 4, 0, 1),
			rate(db.ScopePresubmit, "pull-ci-openshift-ovn-kubernetes-e2e", 2, 5, 2, 3),
		},
		Evidence: []db.Evidence{
			{Job: "e2e-aws-upgrade", BuildID: 12, URL: "https://prow.example/view/12", Result: "failure", StartedAt: day(27, 3),
				Edge: minor, Symptom: "pod-network", Hits: 4, File: "logs/e2e-aws-upgrade/12/artifacts/e2e.log", Line: 310,
				Excerpt: "dial tcp 10.128.2.4:8080: i/o timeout", At: day(27, 4)},
			{Job: "e2e-aws-upgrade", BuildID: 7, URL: "https://prow.example/view/7", Result: "success", StartedAt: day(20, 3),
				Edge: micro, Symptom: "pod-network", Hits: 1, File: "logs/e2e-aws-upgrade/7/artifacts/e2e.log",
				Excerpt: "dial tcp 10.128.2.9:8080: i/o timeout", At: day(20, 4)},
		},
		Weekly: []db.WeeklyRate{
			{Edge: minor, Week: "2026-W45", WeekStart: day(2, 0), WeekEnd: day(9, 0), Runs: 12, Hits: 3, Rate: 0.25},
			{Edge: minor, Week: "2026-W46..W47", WeekStart: day(9, 0), WeekEnd: day(23, 0), Runs: 12, Hits: 4, Rate: 1.0 / 3},
			{Edge: micro, Week: "2026-W45..W47", WeekStart: day(2, 0), WeekEnd: day(23, 0), Runs: 20, Hits: 0},
		},
		MinRuns: 10,
		Window:  "2026-11-22..2026-11-28 against 2026-10-23..2026-11-21",
		Extras: analyze.RunNumbers{
			Runs: []db.SymptomRun{
				run(3, minor, "4.13.9", "4.14.0-ec.1", "aws", "failure", "Partial", day(3, 4), day(3, 5), day(3, 6)),
				run(7, micro, "4.14.0-ec.1", "4.14.0-ec.2", "aws", "success", "Completed", day(20, 4), day(20, 4).Add(90*time.Second), day(20, 6)),
				run(12, minor, "4.13.10", "4.14.0-ec.2", "aws", "failure", "Completed", day(27, 4), day(27, 6), day(27, 6)),
			},
			FromVersions: []db.EdgeFromVersion{
				{Edge: minor, Release: "4.14", FromRelease: "4.13", Upgrade: "minor", Platform: "aws", FromVersion: "4.13.9", Runs: 12, WithSymptom: 4},
				{Edge: minor, Release: "4.14", FromRelease: "4.13", Upgrade: "minor", Platform: "aws", FromVersion: "4.13.10", Runs: 4, WithSymptom: 3},
				{Edge: minor, Release: "4.14", FromRelease: "4.13", Upgrade: "minor", Platform: "gcp", FromVersion: "4.13.10", Runs: 8},
				{Edge: micro, Release: "4.14", FromRelease: "4.14", Upgrade: "micro", Platform: "aws", FromVersion: "4.14.0-ec.1", Runs: 20, WithSymptom: 3},
			},
			Disruption: []db.DisruptionSample{
				{Backend: "kube-api-new-connections", Edge: minor, Shows: true, Seconds: 12, Runs: 2},
				{Backend: "kube-api-new-connections", Edge: minor, Shows: true, Seconds: 40, Runs: 1},
				{Backend: "kube-api-new-connections", Edge: minor, Seconds: 2, Runs: 15},
				{Backend: "ingress-to-console", Edge: minor, Shows: true, Seconds: 0, Runs: 3},
			},
			Stats: []db.DisruptionStat{
				{Backend: "kube-api-new-connections", Scope: db.ScopeEdge, Key: minor, Comparison: db.CompareRelease,
					SampleLabel: minor, BasisLabel: "4.12->4.13 minor", SampleRuns: 18, SampleMedian: 2, SampleP95: 30, SampleMax: 40,
					BasisRuns: 20, BasisMedian: 1, BasisP95: 3, BasisMax: 4, P95Delta: 27, Verdict: db.DisruptionWorse,
					SampleFrom: day(1, 0), SampleTo: day(28, 0), BasisFrom: day(2, 0), BasisTo: day(27, 0)},
			},
			FailedTests: []db.TestFailedWith{{Suite: "openshift-tests", Name: "[sig-network] pods should reach each other", Runs: 6}},
			Regressions: []db.Regression{
				{Symptom: "pod-network", Scope: db.ScopeEdge, Key: minor, Status: db.RegressionOpen, OpenedAt: day(10, 0),
					LastSeenAt: day(28, 0), Reopened: 1, ReopenedAt: day(20, 0)},
				{Symptom: "pod-network", Scope: db.ScopeEdge, Key: micro, Status: db.RegressionClosed, OpenedAt: day(1, 0), ClosedAt: day(8, 0)},
			},
		},
	}
}

// TestAssessGolden assesses numbers made by hand, without a database: the
// assessment as JSON, and the blocked-edges drafts it holds besides.
func TestAssessGolden(t *testing.T) {
	flake := numbers()
	// The same symptom without its regression: a flake on every edge.
	flake.Verdicts = flake.Verdicts[1:3]
	flake.Extras.Regressions = nil
	bounded := numbers()
	bounded.Since, bounded.Job = day(1, 0), "upgrade"
	for _, tc := range []struct {
		name string
		in   analyze.SymptomNumbers
	}{{"regression", numbers()}, {"flake", flake}, {"bounded", bounded}} {
		t.Run(tc.name, func(t *testing.T) {
			a := Assess(tc.in)
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(struct {
				Assessment
				Blocked []BlockedEdge `json:"blocked_edges"`
			}{a, a.Blocked}); err != nil {
				t.Fatal(err)
			}
			testutil.Golden(t, "./assess", "assess_"+tc.name+".json", b.Bytes())
		})
	}
}
