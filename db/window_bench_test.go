package db

import (
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// BenchmarkWriteDisruption writes runs as a crawl stores them, each with
// four backends' disruption and a symptom: what the copies of the run's
// columns, the runs' totals and the day counts of a window (migrations 0017
// and 0019, kept by triggers) cost the writer. Batches of 100 runs, each
// started a minute after the one before.
func BenchmarkWriteDisruption(b *testing.B) {
	d := openTest(b)
	if err := d.SyncSymptoms(b.Context(), []Symptom{{ID: "etcd", Title: "etcd refused", Source: "builtin"}}); err != nil {
		b.Fatal(err)
	}
	backends := []string{"kube-api-new-connections", "openshift-api-new-connections", "pod-to-pod-new-connections", "ingress-to-console-new-connections"}
	var next int64 = 1
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for b.Loop() {
		batch := make([]prowcrawl.Record, 100)
		for i := range batch {
			r := anRun(anMinor, next, "failure", start.Add(time.Duration(next)*time.Minute), "etcd")
			for k, be := range backends {
				r.Disruptions = append(r.Disruptions, prowcrawl.RunDisruption{File: "artifacts/e2e/backend-disruption_upgrade.json", Backend: be,
					Connection: "new", Seconds: float64((next + int64(k)) % 5), Source: prowcrawl.DisruptionFromFile})
			}
			batch[i] = r
			next++
		}
		if err := d.Write(b.Context(), batch, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(next-1)/b.Elapsed().Seconds(), "runs/s")
}
