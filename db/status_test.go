package db

import (
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// TestStatusCountsUnreadApart: a run whose metadata could not be read is
// stored pending with no start (fetch_status error); Status counts it as
// unread, not as pending, beside a run that is still running.
func TestStatusCountsUnreadApart(t *testing.T) {
	d := openTest(t)
	j := prowcrawl.JobFromName("periodic-ci-openshift-release-master-ci-4.14-e2e-aws-ovn-upgrade", false)
	start := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	recs := []prowcrawl.Record{
		{Job: j, Run: prowcrawl.Run{BuildID: 1, Bucket: "b", Path: "logs/x/1", Result: prowcrawl.ResultSuccess, StartedAt: start,
			FinishedAt: start.Add(time.Hour), FetchStatus: prowcrawl.FetchComplete}},
		{Job: j, Run: prowcrawl.Run{BuildID: 2, Bucket: "b", Path: "logs/x/2", Result: prowcrawl.ResultPending, StartedAt: start.Add(2 * time.Hour),
			FetchStatus: prowcrawl.FetchComplete}},
		{Job: j, Run: prowcrawl.Run{BuildID: 3, Bucket: "b", Path: "logs/x/3", Result: prowcrawl.ResultPending,
			FetchStatus: prowcrawl.FetchError, FetchError: "started.json: backend error"}},
	}
	if err := d.Write(t.Context(), recs, nil); err != nil {
		t.Fatal(err)
	}
	st, err := d.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 1 || st[0].Runs != 3 || st[0].Pending != 1 || st[0].Unread != 1 || st[0].Success != 1 {
		t.Errorf("status %+v, want 3 runs: 1 success, 1 pending, 1 unread", st)
	}
}
